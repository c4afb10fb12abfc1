// Package jobrun is the command an EggoCluster's Jobs run
// (`eggo-controller job plan|apply|destroy|release`): it lays out the run's
// directory from the mounted configuration or saved plan, runs the eggo
// CLI there, and for a plan publishes the result where the controller
// reads it. It never prints or publishes a key: the SSH key and the
// identity stay in their read-only mounts and reach eggo as paths.
package jobrun

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// Options are a Job's arguments (set by the controller's job spec).
type Options struct {
	Phase, Namespace, Cluster, ClusterUID, Job string
	// StateNamespace holds the state, its Lease, the saved plans and the
	// workload cluster's access Secrets: the namespace the platform admin
	// gave this namespace's state (default: Namespace). The Jobs' Secret
	// rights are there; in Namespace they have ConfigMaps only.
	StateNamespace             string
	Bundle, Identity, PlanHash string
	Vars                       []string
	Eggo                       string // the eggo binary (default: eggo on PATH)
	WorkDir, ConfigDir         string
	Kubeconfig                 string // default: in the cluster, the Job's ServiceAccount
}

// stateNamespace is where the Job's Secrets are.
func (o Options) stateNamespace() string {
	if o.StateNamespace != "" {
		return o.StateNamespace
	}
	return o.Namespace
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// Parse reads `job PHASE -flags…`.
func Parse(args []string) (Options, error) {
	o := Options{Eggo: "eggo", WorkDir: v1alpha1.MountWork, ConfigDir: v1alpha1.MountConfig}
	if len(args) == 0 {
		return o, fmt.Errorf("usage: eggo-controller job plan|apply|destroy|release -cluster=NAME …")
	}
	o.Phase = args[0]
	switch o.Phase {
	case v1alpha1.PhasePlan, v1alpha1.PhaseApply, v1alpha1.PhaseDestroy, v1alpha1.PhaseRelease:
	default:
		return o, fmt.Errorf("job: unknown phase %q (plan, apply, destroy or release)", o.Phase)
	}
	fs := flag.NewFlagSet("job "+o.Phase, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var vars multi
	for name, p := range map[string]*string{
		"namespace": &o.Namespace, "state-namespace": &o.StateNamespace, "cluster": &o.Cluster, "cluster-uid": &o.ClusterUID, "job": &o.Job,
		"bundle": &o.Bundle, "identity": &o.Identity, "plan-hash": &o.PlanHash, "eggo": &o.Eggo,
		"work": &o.WorkDir, "config-dir": &o.ConfigDir, "kubeconfig": &o.Kubeconfig,
	} {
		fs.StringVar(p, name, *p, "")
	}
	fs.Var(&vars, "var", "")
	confine := fs.Bool("confine-files", false, "")
	if err := fs.Parse(args[1:]); err != nil {
		return o, fmt.Errorf("job %s: %v", o.Phase, err)
	}
	o.Vars = vars
	if o.Cluster == "" || o.Namespace == "" || o.Job == "" {
		return o, fmt.Errorf("job %s: -cluster, -namespace and -job are needed", o.Phase)
	}
	if !*confine {
		return o, fmt.Errorf("job %s: -confine-files is needed: a Job's configuration may not read its mounted Secrets (eggo runs confined in any case)", o.Phase)
	}
	if o.Phase == v1alpha1.PhaseApply && o.PlanHash == "" {
		return o, fmt.Errorf("job apply: -plan-hash is needed")
	}
	return o, nil
}

// Main runs a Job's command and returns its exit code. A failure's message
// is its last line of output, which the Job's pod reports as its
// termination message.
func Main(args []string, stdout, stderr io.Writer) int {
	o, err := Parse(args)
	if err == nil {
		err = Run(o, stdout, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "Error:", err)
		return 1
	}
	return 0
}

// Run runs one phase.
func Run(o Options, stdout, stderr io.Writer) error {
	switch o.Phase {
	case v1alpha1.PhasePlan:
		return runPlan(o, stdout, stderr)
	case v1alpha1.PhaseApply:
		return runApply(o, stdout, stderr)
	case v1alpha1.PhaseRelease:
		return DeleteLeftovers(o, stderr)
	default:
		return runDestroy(o, stdout, stderr)
	}
}
