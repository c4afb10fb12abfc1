// Package kinds is the list of eggo's resource kinds: the one place that
// knows every family. The engine plans and applies through the kinds it is
// given; this is the list a real run gives it.
package kinds

import (
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/addon"
	"github.com/eggo-project/eggo/resources/certs"
	"github.com/eggo-project/eggo/resources/host"
	"github.com/eggo-project/eggo/resources/kube"
)

// All returns a fresh instance of every kind, sorted by name so that
// anything derived from the list (expansion order, messages) is stable.
func All() []resources.Kind {
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
}
