// Command eggo-capi is eggo's Cluster API providers' manager: one binary,
// run once per provider (three Deployments), --provider choosing which
// reconcilers it runs.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	bootstrapv1 "github.com/eggo-project/eggo/capi/api/bootstrap/v1alpha1"
	controlplanev1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/controllers/bootstrap"
	"github.com/eggo-project/eggo/capi/controllers/controlplane"
	"github.com/eggo-project/eggo/capi/controllers/infrastructure"
	"github.com/eggo-project/eggo/capi/internal/manager"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// The providers --provider selects.
const (
	Infrastructure = "infrastructure"
	Bootstrap      = "bootstrap"
	ControlPlane   = "control-plane"
)

const usage = `eggo-capi runs one of eggo's Cluster API providers.

  --provider=infrastructure  the SSHCluster (endpoint), SSHMachine (host claim) and SSHHost reconcilers
  --provider=bootstrap       the EggoConfig reconciler (bootstrap data Secrets)
  --provider=control-plane   the EggoControlPlane reconciler: its control-plane Machines,
                             and the EggoCluster it renders from the cluster's Machines

Each provider takes its own leader-election lease (eggo-capi-<provider>),
leader election on by default.

Flags:
`

// setup registers provider's reconcilers with mgr.
func setup(provider string, mgr ctrl.Manager, opts controller.Options) error {
	switch provider {
	case Infrastructure:
		return infrastructure.Setup(mgr, opts)
	case Bootstrap:
		return (&bootstrap.EggoConfigReconciler{}).SetupWithManager(mgr, opts)
	case ControlPlane:
		return (&controlplane.Reconciler{}).SetupWithManager(mgr, opts)
	}
	return fmt.Errorf("unknown --provider %q: want %s, %s or %s", provider, Infrastructure, Bootstrap, ControlPlane)
}

func newScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, clusterv1.AddToScheme,
		infrav1.AddToScheme, bootstrapv1.AddToScheme, controlplanev1.AddToScheme,
		eggov1.AddToScheme, // the EggoClusters the control plane writes
	} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// options are the manager's, from the flags.
type options struct {
	manager.Options
	provider string
}

func main() {
	var o options
	flag.StringVar(&o.provider, "provider", "", "the provider to run: infrastructure, bootstrap or control-plane")
	o.BindFlags(flag.CommandLine, "the provider's")
	zopts := zap.Options{}
	zopts.BindFlags(flag.CommandLine)
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		flag.PrintDefaults()
	}
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zopts)))
	log := ctrl.Log.WithName("eggo-capi")

	switch o.provider {
	case Infrastructure, Bootstrap, ControlPlane:
	default:
		flag.Usage()
		log.Error(fmt.Errorf("unknown --provider %q", o.provider), "eggo-capi failed")
		os.Exit(2)
	}
	cfg, err := ctrl.GetConfig()
	if err == nil {
		err = run(ctrl.SetupSignalHandler(), cfg, o)
	}
	if err != nil {
		log.Error(err, "eggo-capi failed", "provider", o.provider)
		os.Exit(1)
	}
}

// run runs the provider's manager until ctx ends.
func run(ctx context.Context, cfg *rest.Config, o options) error {
	scheme, err := newScheme()
	if err != nil {
		return err
	}
	return manager.Run(ctx, cfg, scheme, o.Options, LeaseName(o.provider), func(mgr ctrl.Manager) error {
		return setup(o.provider, mgr, controller.Options{})
	})
}

// LeaseName is the provider's leader-election lease: one per provider, so
// the three Deployments elect their leaders apart.
func LeaseName(provider string) string { return "eggo-capi-" + provider }
