// Package manager is what eggo-capi and eggo-certs share: the manager's
// flags and its run — metrics, probes and leader election the same way
// for every Deployment eggo ships to a management cluster.
package manager

import (
	"context"
	"flag"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// Options are a manager's, from the flags.
type Options struct {
	MetricsAddr, ProbeAddr, LeaseNamespace string
	LeaderElect                            bool
}

// BindFlags binds the flags every eggo manager takes to o; whose names
// the lease in the leader election flag's help.
func (o *Options) BindFlags(fs *flag.FlagSet, whose string) {
	fs.StringVar(&o.MetricsAddr, "metrics-bind-address", ":8080", `the metrics endpoint's address ("0" turns it off)`)
	fs.StringVar(&o.ProbeAddr, "health-probe-bind-address", ":8081", "the /healthz and /readyz endpoints' address")
	fs.BoolVar(&o.LeaderElect, "leader-elect", true, "take "+whose+" lease before reconciling (one active replica)")
	fs.StringVar(&o.LeaseNamespace, "leader-election-namespace", "", "the lease's namespace (default: the pod's)")
}

// Run runs a manager of scheme with the lease leaseName and setup's
// reconcilers until ctx ends; /healthz and /readyz answer once it runs.
func Run(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, o Options, leaseName string, setup func(ctrl.Manager) error) error {
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: o.MetricsAddr},
		HealthProbeBindAddress:  o.ProbeAddr,
		LeaderElection:          o.LeaderElect,
		LeaderElectionID:        leaseName,
		LeaderElectionNamespace: o.LeaseNamespace,
	})
	if err != nil {
		return err
	}
	if err := setup(mgr); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return err
	}
	return mgr.Start(ctx)
}
