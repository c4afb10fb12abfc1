// Package kinds is the list of eggo's resource kinds: the one place that
// knows every family. The engine plans and applies through the kinds it is
// given; this is the list a real run gives it.
package kinds

import (
	"sync"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/addon"
	"github.com/eggo-project/eggo/resources/certs"
	"github.com/eggo-project/eggo/resources/host"
	"github.com/eggo-project/eggo/resources/kube"
)

// All returns every kind, sorted by name so that anything derived from the
// list (expansion order, messages) is stable. The instances are the same on
// every call, one per process: a kind may learn something when it expands
// that it needs when it applies (the host kind: which local file has which
// content), and a plan and its apply must meet the same instance however
// their callers build their options.
var All = sync.OnceValue(func() []resources.Kind {
	return []resources.Kind{
		addon.Addon{},
		certs.NewCert(),
		kube.EtcdMember{},
		host.New(),
		kube.K8sNode{},
		certs.NewKubeconfig(),
		certs.NewPKI(),
		kube.Service{},
	}
})
