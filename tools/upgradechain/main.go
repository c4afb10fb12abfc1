// Command upgradechain runs the path a cluster made at an old minor takes
// to the default one (make upgrade-chain; website/kubernetes.md, "From
// 1.31"): it boots three testbed hosts (m0 a master running etcd, w0 and w1
// workers), deploys examples/demo at the first version, starts a
// Deployment of two replicas, then moves the cluster up one minor at a time
// with `eggo apply`, each minor from its own bundle. After every step it
// checks what an operator would: the next plan is empty
// (-detailed-exitcode 0), every Node runs the new kubelet and is Ready, the
// apiserver and etcd report the new releases, and the Deployment is the
// same object (its uid: etcd's data survived) with both replicas available.
// It prints each apply's time and exits 1 at the first step that fails,
// leaving the logs in the results directory. Not part of make test: the
// five bundles of 1.31–1.35 take half an hour to build cold, and the chain
// itself about as long.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/eggo-project/eggo/internal/harness/nspawntest"
)

type options struct {
	eggo, example, cache, results string
	versions                      []string
	keep                          bool
}

func main() {
	var o options
	var versions string
	flag.StringVar(&o.eggo, "eggo", "bin/eggo", "the eggo binary")
	flag.StringVar(&o.example, "example", "examples/demo/main.hcl", "the cluster's configuration (it takes the variables kubernetes_version and packages)")
	flag.StringVar(&o.cache, "cache", "/var/cache/eggo", "where make bundle put the bundles (CACHE/bundle/VERSION)")
	flag.StringVar(&o.results, "results", "upgrade-chain-results", "where the state, kubeconfig and logs go")
	flag.StringVar(&versions, "versions", "v1.31.4 v1.32.9 v1.33.13 v1.34.12 v1.35.8 v1.36.5", "the versions, first deployed, then each applied in turn")
	flag.BoolVar(&o.keep, "keep", false, "leave the cluster up (make testbed-down tears it down)")
	flag.Parse()
	o.versions = strings.Fields(versions)
	for _, p := range []*string{&o.eggo, &o.example, &o.results} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			fail(err)
		}
		*p = abs
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	steps, err := run(ctx, o)
	fmt.Println()
	fmt.Println("step                 apply     next plan  nodes  deployment")
	for _, s := range steps {
		fmt.Println(s)
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "upgradechain:", err)
	os.Exit(1)
}

// step is one version's apply and what was checked after it.
type step struct {
	from, to string
	apply    time.Duration
	checked  bool
}

// name is the step as the table and the log headings say it.
func (s step) name() string {
	if s.from == "" {
		return s.to + " (deploy)"
	}
	return strings.TrimPrefix(s.from, "v") + " → " + strings.TrimPrefix(s.to, "v")
}

func (s step) String() string {
	name := s.name()
	result := "empty      Ready  2/2, same uid"
	if !s.checked {
		result = "(failed)"
	}
	return fmt.Sprintf("%-20s %-9s %s", name, s.apply.Round(time.Second), result)
}

// chain is one run's cluster: its directory, bundle-relative kubectl and
// the Deployment's uid once made.
type chain struct {
	options
	dir, vars, kubeconfig string
	uid                   string
}

func run(ctx context.Context, o options) ([]step, error) {
	if len(o.versions) < 2 {
		return nil, errors.New("-versions: name at least two versions")
	}
	for _, v := range o.versions {
		if _, err := os.Stat(filepath.Join(o.cache, "bundle", v, "MANIFEST")); err != nil {
			return nil, fmt.Errorf("no bundle for %s (make bundle BUNDLE_VERSIONS=%s): %w", v, v, err)
		}
	}
	c := &chain{options: o, dir: filepath.Join(o.results, "cluster")}
	if err := os.RemoveAll(o.results); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return nil, err
	}
	hcl, err := os.ReadFile(o.example)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(c.dir, "main.hcl"), hcl, 0o644); err != nil {
		return nil, err
	}
	tb, err := nspawntest.Up(ctx, nspawntest.Options{Names: []string{"m0", "w0", "w1"}, ID: "chain", Containers: true,
		Log: func(f string, a ...any) { fmt.Printf("testbed: "+f+"\n", a...) }})
	if err != nil {
		return nil, err
	}
	if !o.keep {
		defer tb.Down()
	}
	if c.vars, err = tb.WriteInventory(filepath.Join(c.dir, "testbed.json")); err != nil {
		return nil, err
	}
	// examples/demo writes its kubeconfig beside the state, under the
	// cluster's name.
	c.kubeconfig = filepath.Join(c.dir, "demo.kubeconfig")

	var steps []step
	for i, v := range o.versions {
		s := step{to: v}
		if i > 0 {
			s.from = o.versions[i-1]
		}
		fmt.Printf("\n=== %s\n", s.name())
		if i > 0 {
			// The upgrade's plan, kept for the record: it must plan
			// changes (exit 2), and say nothing is refused.
			if code, err := c.runEggo(ctx, fmt.Sprintf("plan-%s.log", v), v, "plan", "-detailed-exitcode"); code != 2 {
				return append(steps, s), fmt.Errorf("plan of %s: exit %d, want 2 (changes): %v", v, code, err)
			}
		}
		start := time.Now()
		if code, err := c.runEggo(ctx, fmt.Sprintf("apply-%s.log", v), v, "apply", "-auto-approve"); code != 0 {
			s.apply = time.Since(start)
			return append(steps, s), fmt.Errorf("apply of %s: exit %d: %v (%s)", v, code, err, filepath.Join(o.results, "apply-"+v+".log"))
		}
		s.apply = time.Since(start)
		if err := c.check(ctx, v, i == 0); err != nil {
			return append(steps, s), fmt.Errorf("after %s: %w", v, err)
		}
		s.checked = true
		steps = append(steps, s)
	}
	if !o.keep {
		if code, err := c.runEggo(ctx, "destroy.log", o.versions[len(o.versions)-1], "destroy", "-auto-approve"); code != 0 {
			return steps, fmt.Errorf("destroy: exit %d: %v", code, err)
		}
	}
	return steps, nil
}

// runEggo runs bin/eggo in the cluster's directory at version v (its bundle),
// its output to log (and the terminal), and returns its exit code.
func (c *chain) runEggo(ctx context.Context, log, v string, args ...string) (int, error) {
	f, err := os.Create(filepath.Join(c.results, log))
	if err != nil {
		return -1, err
	}
	defer f.Close()
	full := append([]string{"-chdir=" + c.dir}, args...)
	full = append(full, "-var-file="+c.vars,
		"-var", "kubernetes_version="+strings.TrimPrefix(v, "v"),
		"-var", "packages="+filepath.Join(c.cache, "bundle", v))
	cmd := exec.CommandContext(ctx, c.eggo, full...)
	cmd.Stdout = io.MultiWriter(f, os.Stdout)
	cmd.Stderr = cmd.Stdout
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), err
	}
	if err != nil {
		return -1, err
	}
	return 0, nil
}

// check is what holds after every step at version v; first makes the
// Deployment the later steps keep.
func (c *chain) check(ctx context.Context, v string, first bool) error {
	if code, err := c.runEggo(ctx, fmt.Sprintf("plan-after-%s.log", v), v, "plan", "-detailed-exitcode"); code != 0 {
		return fmt.Errorf("the plan after the apply is not empty: exit %d: %v (%s)", code, err, filepath.Join(c.results, "plan-after-"+v+".log"))
	}
	kubectl := func(args ...string) (string, error) {
		bin := filepath.Join(c.cache, "bundle", v, "amd64/usr/local/bin/kubectl")
		cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", c.kubeconfig, "--request-timeout=20s"}, args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
		}
		return strings.TrimSpace(out.String()), nil
	}
	// Every Node Ready at the new kubelet: the apply waits for each, but
	// a Node can fall back to NotReady after it (a CNI that lost its
	// config, a kubelet restarting on a bad flag).
	if err := poll(ctx, 3*time.Minute, func() error {
		out, err := kubectl("get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name} {.status.nodeInfo.kubeletVersion} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}`)
		if err != nil {
			return err
		}
		lines := strings.Split(out, "\n")
		if len(lines) != 3 {
			return fmt.Errorf("want 3 Nodes, got %q", out)
		}
		for _, l := range lines {
			f := strings.Fields(l)
			if len(f) != 3 || f[1] != v || f[2] != "True" {
				return fmt.Errorf("Node %q: want kubelet %s and Ready", l, v)
			}
		}
		return nil
	}); err != nil {
		return err
	}
	server, err := kubectl("get", "--raw", "/version")
	if err != nil || !strings.Contains(server, v) {
		return fmt.Errorf("the apiserver reports %q, want %s: %v", server, v, err)
	}
	if first {
		manifest := filepath.Join(c.results, "deployment.yaml")
		if err := os.WriteFile(manifest, []byte(deployment(c.pauseImage(v))), 0o644); err != nil {
			return err
		}
		if _, err := kubectl("apply", "-f", manifest); err != nil {
			return err
		}
	}
	if err := poll(ctx, 5*time.Minute, func() error {
		out, err := kubectl("get", "deployment", "chain", "-o", "jsonpath={.metadata.uid} {.status.availableReplicas}")
		if err != nil {
			return err
		}
		f := strings.Fields(out)
		if len(f) != 2 || f[1] != "2" {
			return fmt.Errorf("deployment chain: want 2 available, got %q", out)
		}
		if c.uid == "" {
			c.uid = f[0]
		}
		if f[0] != c.uid {
			return fmt.Errorf("deployment chain's uid is %s, was %s: the cluster's data did not survive", f[0], c.uid)
		}
		return nil
	}); err != nil {
		return err
	}
	pods, _ := kubectl("get", "pods", "-A", "-o", "wide")
	fmt.Printf("after %s:\n%s\n", v, pods)
	return nil
}

// pauseImage is the sandbox image of version v's bundle, which every
// Node has: the Deployment's pods need no registry.
func (c *chain) pauseImage(v string) string {
	manifest, err := os.ReadFile(filepath.Join(c.cache, "bundle", v, "MANIFEST"))
	if err == nil {
		for _, l := range strings.Split(string(manifest), "\n") {
			if i := strings.Index(l, "registry.k8s.io/pause:"); i >= 0 {
				return strings.Fields(l[i:])[0]
			}
		}
	}
	return "registry.k8s.io/pause:3.10"
}

func deployment(image string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: chain
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels: {app: chain}
  template:
    metadata:
      labels: {app: chain}
    spec:
      containers:
      - name: pause
        image: ` + image + `
        imagePullPolicy: Never
`
}

func poll(ctx context.Context, d time.Duration, f func() error) error {
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(3 * time.Second):
		}
	}
}
