// Command eggo-controller is eggo's GitOps controller (`eggo-controller
// run`, the default) and the command its Jobs run (`eggo-controller job
// plan|apply|destroy|release`). It is a binary of its own so that the eggo CLI
// does not carry controller-runtime.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/eggo-project/eggo/controller"
	"github.com/eggo-project/eggo/controller/api/v1alpha1"
	"github.com/eggo-project/eggo/controller/jobrun"
)

func main() { os.Exit(realMain(os.Args[1:])) }

func realMain(args []string) int {
	if len(args) > 0 && args[0] == "job" {
		return jobrun.Main(args[1:], os.Stdout, os.Stderr)
	}
	if len(args) > 0 && args[0] == "run" {
		args = args[1:]
	}
	if err := run(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0 // -help: the flags were printed
		}
		fmt.Fprintln(os.Stderr, "eggo-controller:", err)
		return 1
	}
	return 0
}

// run runs the controller until it is signalled.
func run(args []string) error {
	fs := flag.NewFlagSet("eggo-controller", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: eggo-controller [run] [flags]   (the GitOps controller)\n"+
			"       eggo-controller job plan|apply|destroy|release -cluster=NAME …   (what an EggoCluster's Jobs run)\nflags of run:")
		fs.PrintDefaults()
	}
	metrics := fs.String("metrics-bind-address", "0", "where to serve metrics (0: not at all)")
	probes := fs.String("health-probe-bind-address", ":8081", "where to serve /healthz and /readyz")
	leader := fs.Bool("leader-elect", false, "elect one active controller among replicas")
	policy := fs.String("policy", controller.DefaultPolicyConfigMap.String(),
		"NAMESPACE/NAME of the ConfigMap holding what the platform admin allows EggoClusters (the Jobs' image, hostPath bundles)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ns, name, ok := strings.Cut(*policy, "/")
	if !ok || ns == "" || name == "" {
		return fmt.Errorf("-policy=%s: want NAMESPACE/NAME", *policy)
	}
	ctrl.SetLogger(zap.New())
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: *metrics},
		HealthProbeBindAddress: *probes, LeaderElection: *leader, LeaderElectionID: "eggo-controller.eggo.io",
	})
	if err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	r := &controller.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: scheme,
		Recorder: mgr.GetEventRecorderFor("eggo-controller"), PolicyConfigMap: client.ObjectKey{Namespace: ns, Name: name}}
	if err := r.SetupWithManager(mgr); err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}
