// Command eggo-certs is eggo's stand-in for cert-manager (DESIGN.md §3):
// the controllers of controllers/certs (selfSigned and ca issuers,
// Certificates issued into kubernetes.io/tls Secrets, CA injection),
// which clusterctl installs as "cert-manager v1.21.1" from eggo's local
// repository. Leader election on by default (lease eggo-certs).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/eggo-project/eggo/capi/controllers/certs"
	"github.com/eggo-project/eggo/capi/internal/manager"
)

// LeaseName is eggo-certs' leader-election lease.
const LeaseName = "eggo-certs"

const usage = `eggo-certs is the part of cert-manager (cert-manager.io/v1) Cluster API uses:
selfSigned and ca Issuers/ClusterIssuers, Certificates issued into
kubernetes.io/tls Secrets and renewed, and CA injection into webhook
configurations, CRDs and APIServices (cert-manager.io/inject-ca-from,
cert-manager.io/inject-ca-from-secret). No webhook, no ACME.

Leader election on by default (lease eggo-certs).

Flags:
`

// options are the manager's, from the flags.
type options struct {
	manager.Options
	clusterResourceNamespace string
}

func main() {
	var o options
	o.BindFlags(flag.CommandLine, "the")
	flag.StringVar(&o.clusterResourceNamespace, "cluster-resource-namespace", "cert-manager",
		"the namespace of the Secrets ClusterIssuers of type ca name")
	zopts := zap.Options{}
	zopts.BindFlags(flag.CommandLine)
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		flag.PrintDefaults()
	}
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zopts)))
	log := ctrl.Log.WithName("eggo-certs")
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	cfg, err := ctrl.GetConfig()
	if err == nil {
		err = run(ctrl.SetupSignalHandler(), cfg, o)
	}
	if err != nil {
		log.Error(err, "eggo-certs failed")
		os.Exit(1)
	}
}

func newScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextv1.AddToScheme} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// run runs the manager until ctx ends.
func run(ctx context.Context, cfg *rest.Config, o options) error {
	scheme, err := newScheme()
	if err != nil {
		return err
	}
	return manager.Run(ctx, cfg, scheme, o.Options, LeaseName, func(mgr ctrl.Manager) error {
		return certs.Setup(mgr, certs.Options{ClusterResourceNamespace: o.clusterResourceNamespace, Controller: controller.Options{}})
	})
}
