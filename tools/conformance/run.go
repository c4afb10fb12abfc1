package conformance

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/resources"
)

// serialFocus matches the [Serial] [Conformance] specs whichever order
// their labels come in (v1.36's names put [Serial] first, v1.37's last);
// ginkgo ORs its focus patterns, and RE2 has no lookahead.
const serialFocus = `\[Serial\].*\[Conformance\]|\[Conformance\].*\[Serial\]`

// Options of a run of `make conformance`.
type Options struct {
	Eggo           string // bin/eggo
	Version        string // the cluster's kubernetes_version, vX.Y.Z ("": the example's)
	Example        string // examples/conformance: the cluster's HCL
	Bundle         string // make bundle's, for the cluster's version
	Tools          string // make conformance-tools': e2e.test, ginkgo, agnhost
	Images         string // image archives added to the bundle ("" or missing: none)
	List           string // conformance-tests.txt: the tests counted
	Results        string // where the state, kubeconfig, logs and reports go
	Workers        int    // at least 2
	Procs          int    // ginkgo's parallel processes for the parallel phase
	Focus          string // the parallel phase's focus (default [Conformance])
	Serial         bool   // run the [Serial] [Conformance] phase after it
	Keep           bool   // leave the cluster up
	Implementation string // the cluster's: "binary" (default) or "pod"
	// EtcdImplementation is the cluster's etcd_implementation: "binary"
	// (default) or "pod" (with Implementation "pod").
	EtcdImplementation string
	// FlakeAttempts is ginkgo's --flake-attempts for the parallel phase:
	// a failed test runs again, up to this many attempts in all, and the
	// summary counts those that passed only so. make conformance leaves
	// it 0 (no test runs twice); make test's smoke sets 3 (smokeAttempts).
	FlakeAttempts int
	Log           io.Writer
}

// Run deploys the cluster, runs the phases and prints the summary. The
// error is what stopped the run, not a failed test.
func Run(ctx context.Context, o Options) (Summary, error) {
	if o.Implementation == "" {
		o.Implementation = "binary"
	}
	if o.EtcdImplementation == "" {
		o.EtcdImplementation = "binary"
	}
	for _, v := range []string{o.Implementation, o.EtcdImplementation} {
		if v != "binary" && v != "pod" {
			return Summary{}, fmt.Errorf("implementation %q: want binary or pod", v)
		}
	}
	if err := os.MkdirAll(o.Results, 0o755); err != nil {
		return Summary{}, err
	}
	if err := clearResults(o.Results); err != nil {
		return Summary{}, err
	}
	if _, err := ReadList(o.List); err != nil {
		return Summary{}, err
	}
	bundle, err := WithImages(o)
	if err != nil {
		return Summary{}, err
	}
	names := []string{"lb0", "m0", "m1", "m2"}
	for i := range max(o.Workers, 2) {
		names = append(names, "w"+strconv.Itoa(i))
	}
	tb, err := nspawntest.Up(ctx, nspawntest.Options{Names: names, ID: "conform", Containers: true,
		Log: func(f string, a ...any) { fmt.Fprintf(o.Log, "testbed: "+f+"\n", a...) }})
	if err != nil {
		return Summary{}, err
	}
	if !o.Keep {
		defer tb.Down()
	}
	vars, err := tb.WriteInventory(filepath.Join(o.Results, "testbed.json"))
	if err != nil {
		return Summary{}, err
	}
	state := filepath.Join(o.Results, "eggo.state")
	started := time.Now()
	args := []string{"-chdir=" + o.Example, "apply", "-auto-approve", "-state=" + state,
		"-var-file=" + vars, "-var", "packages=" + bundle, "-var", "implementation=" + o.Implementation,
		"-var", "etcd_implementation=" + o.EtcdImplementation}
	if o.Version != "" {
		args = append(args, "-var", "kubernetes_version="+strings.TrimPrefix(o.Version, "v"))
	}
	mirror, stopMirror, err := o.serveImages(ctx, tb.Networks()[0].Gateway)
	if err != nil {
		return Summary{}, err
	}
	defer stopMirror()
	if mirror != "" {
		args = append(args, "-var", "registry_mirror="+mirror)
	}
	if err := o.run(ctx, "apply.log", o.Eggo, args...); err != nil {
		return Summary{}, fmt.Errorf("deploying the cluster (%s): %w", filepath.Join(o.Results, "apply.log"), err)
	}
	fmt.Fprintf(o.Log, "cluster deployed in %s\n", time.Since(started).Round(time.Second))
	return Test(ctx, o, filepath.Join(o.Results, "conformance.kubeconfig"))
}

// Test runs the phases against the cluster of kubeconfig (reports and
// logs in o.Results) and summarizes them against o.List. The error is what
// stopped the run, not a failed test.
func Test(ctx context.Context, o Options, kubeconfig string) (Summary, error) {
	list, err := ReadList(o.List)
	if err != nil {
		return Summary{}, err
	}
	for _, p := range o.phases() {
		if err := o.ginkgo(ctx, p, kubeconfig); err != nil {
			// A failed test makes ginkgo exit non-zero: the reports say
			// which; only a phase with no report stops the run.
			fmt.Fprintf(o.Log, "phase %s: %v\n", p.name, err)
		}
	}
	reports, err := ReadReports(filepath.Join(o.Results, "reports"))
	if err != nil {
		return Summary{}, err
	}
	if len(reports) == 0 {
		return Summary{}, fmt.Errorf("no JUnit report under %s (see %s/*.log)", filepath.Join(o.Results, "reports"), o.Results)
	}
	sum := Summarize(list, reports)
	sum.Flaked, err = countFlaked(o.Results)
	return sum, err
}

// flakedMark is how ginkgo's output heads a test that passed only on a
// later attempt (--flake-attempts); the JUnit report calls it passed.
const flakedMark = "[FLAKEY TEST - TOOK "

// countFlaked counts the tests the phases' logs say passed only on a
// later attempt.
func countFlaked(results string) (int, error) {
	logs, err := filepath.Glob(filepath.Join(results, "e2e-*.log"))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil {
			return 0, err
		}
		n += strings.Count(string(data), flakedMark)
	}
	return n, nil
}

// phase is one ginkgo run: k0s's two, the parallel tests then the serial.
type phase struct {
	name, focus, skip string
	procs             int
	attempts          int // ginkgo's --flake-attempts when more than 1
}

func (o Options) phases() []phase {
	focus := o.Focus
	if focus == "" {
		focus = `\[Conformance\]`
	}
	out := []phase{{name: "parallel", focus: focus, skip: `\[Serial\]`, procs: max(o.Procs, 1), attempts: o.FlakeAttempts}}
	if o.Serial {
		out = append(out, phase{name: "serial", focus: serialFocus, procs: 1})
	}
	return out
}

func (o Options) ginkgo(ctx context.Context, p phase, kubeconfig string) error {
	reports := filepath.Join(o.Results, "reports", p.name)
	if err := os.MkdirAll(reports, 0o755); err != nil {
		return err
	}
	args := p.args()
	args = append(args, filepath.Join(o.Tools, "e2e.test"), "--",
		"--kubeconfig="+kubeconfig, "--provider=skeleton", "--report-dir="+reports, "--disable-log-dump")
	// e2e.test's processes leave files in their TMPDIR (a test-kuberc*
	// directory each, 8 a run): theirs is one this run removes (and the
	// next run, when this one was killed: previousResults).
	tmp, err := os.MkdirTemp(o.Results, "tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	return o.runWith(ctx, []string{"TMPDIR=" + tmp}, "e2e-"+p.name+".log", filepath.Join(o.Tools, "ginkgo"), args...)
}

// args are ginkgo's: every phase runs conformance tests only (they carry
// the label as well as the [Conformance] tag), so a focus narrows them and
// never reaches beyond.
func (p phase) args() []string {
	args := []string{"--procs=" + strconv.Itoa(p.procs), "--label-filter=Conformance", "--focus=" + p.focus,
		"--timeout=24h", "--no-color", "--output-interceptor-mode=none"}
	if p.skip != "" {
		args = append(args, "--skip="+p.skip)
	}
	if p.attempts > 1 {
		args = append(args, "--flake-attempts="+strconv.Itoa(p.attempts))
	}
	return args
}

// run runs a program with its output in the results directory's log (and
// on o.Log).
func (o Options) run(ctx context.Context, log, prog string, args ...string) error {
	return o.runWith(ctx, nil, log, prog, args...)
}

// runWith is run with env added to the program's environment.
func (o Options) runWith(ctx context.Context, env []string, log, prog string, args ...string) error {
	f, err := os.Create(filepath.Join(o.Results, log))
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = io.MultiWriter(f, o.Log)
	cmd.Stderr = cmd.Stdout
	return cmd.Run()
}

// previousResults are what a run leaves in its results directory. A new
// run removes them first: the last cluster's state would pin host keys
// of hosts that are gone, and its reports would count in this summary.
var previousResults = []string{"apply.log", "e2e-*.log", "eggo.state", "eggo.state.*", "reports",
	"summary.txt", "testbed.json", "testbed.eggovars", "conformance.kubeconfig", "tmp-*"}

// clearResults removes the previous run's results from dir, and nothing
// else of it (dir is the operator's).
func clearResults(dir string) error {
	for _, pattern := range previousResults {
		matches, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return err
		}
		for _, m := range matches {
			if err := os.RemoveAll(m); err != nil {
				return err
			}
		}
	}
	return nil
}

// workloadImage is the name of a test image's archive in the bundle:
// images/workload-<name>, which resources.WorkloadImages claims.
func workloadImage(archive string) string {
	return strings.TrimSuffix(path.Base(resources.WorkloadImages), "*") + filepath.Base(archive)
}

// WithImages is the bundle with the image archives added under
// var/lib/eggo/images as the workloads' images (containerd imports each
// one at start, on the Nodes that run workloads): a copy of hard links in
// o.Results/bundle, made anew each run.
func WithImages(o Options) (string, error) {
	archives, _ := filepath.Glob(filepath.Join(o.Images, "*.tar"))
	if len(archives) == 0 {
		fmt.Fprintf(o.Log, "no test images in %q: the tests that need one will fail (make conformance-images)\n", o.Images)
		return o.Bundle, nil
	}
	dir := filepath.Join(o.Results, "bundle")
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if out, err := exec.Command("cp", "-al", o.Bundle, dir).CombinedOutput(); err != nil {
		return "", fmt.Errorf("copying the bundle: %v: %s", err, out)
	}
	lib := filepath.Join(dir, "amd64", "var", "lib", "eggo")
	ours, err := bundleImages(lib)
	if err != nil {
		return "", err
	}
	for _, a := range archives {
		name, err := archiveImageName(a)
		if err != nil {
			return "", err
		}
		// A test image under a name the bundle's own image has (the
		// sample API server's registry.k8s.io/etcd): the bundle's goes in
		// its place. containerd imports the images directory at start,
		// and the cluster's static-pod etcd must not become the tests'.
		if own, ok := ours[name]; ok {
			fmt.Fprintf(o.Log, "test image %s: the bundle's own (%s) serves the tests\n", name, own)
			a = own
		}
		// As the workloads' images: only the Nodes that run the tests'
		// pods receive them (resources.WorkloadImages).
		if err := os.Link(a, filepath.Join(lib, "images", workloadImage(a))); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// serveImages serves the test images as registry.k8s.io's mirror on this
// machine's address on the testbed's bridge, and returns the mirror's URL
// for the cluster's runtime.registry_mirrors ("" without images). The
// Nodes import every image at start, so most tests never ask a registry;
// the few that pull with imagePullPolicy Always (v1.36's image volume
// spec, v1.37's pod certificate specs) do, and an offline testbed has no
// registry.k8s.io. Port 5000 is the registry's usual one.
func (o Options) serveImages(ctx context.Context, gateway string) (string, func(), error) {
	archives, _ := filepath.Glob(filepath.Join(o.Images, "*.tar"))
	if len(archives) == 0 || gateway == "" {
		return "", func() {}, nil
	}
	reg, err := ServeRegistry(ctx, net.JoinHostPort(gateway, "5000"), archives)
	if err != nil {
		return "", nil, fmt.Errorf("serving the test images as registry.k8s.io's mirror: %w", err)
	}
	fmt.Fprintf(o.Log, "test images served as registry.k8s.io's mirror at http://%s (%d images)\n", reg.Addr(), len(reg.Images()))
	return "http://" + reg.Addr(), func() { reg.Close() }, nil
}
