package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
	"github.com/eggo-project/eggo/internal/harness/eggotest"
)

// repoRoot is the module's root (this package is two levels down).
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// bundleDir is make bundle's bundle of the version the clusters run.
func bundleDir(t *testing.T) string {
	t.Helper()
	return eggotest.Bundle(t, k8sVersion)
}

// run runs a program and returns its output, failing the test on error.
func run(t *testing.T, dir, prog string, args ...string) string {
	t.Helper()
	out, err := runErr(dir, nil, prog, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(prog), strings.Join(args, " "), err, out)
	}
	return out
}

func runErr(dir string, stdin []byte, prog string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// eggoImage builds (or reuses) eggo's own image as make eggo-image does
// and returns its archive and name.
func eggoImage(t *testing.T, repo string) (archive, name string) {
	t.Helper()
	cache := os.Getenv("EGGO_CACHE")
	if cache == "" {
		cache = "/var/cache/eggo"
	}
	out := run(t, repo, filepath.Join(repo, "tools/bundle/scripts/eggo-image.sh"), filepath.Join(cache, "eggo-image"))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	archive = lines[len(lines)-1]
	b, err := os.ReadFile(filepath.Join(filepath.Dir(archive), "name"))
	if err != nil {
		t.Fatalf("eggo's image: %v (script said %q)", err, out)
	}
	return archive, strings.TrimSpace(string(b))
}

// managementBundle is the bundle the management cluster is deployed from,
// as make management-bundle makes it: a copy of the bundle carrying eggo's
// image among those every node's containerd imports at start.
func managementBundle(t *testing.T, repo, bundle, archive string, more ...string) string {
	t.Helper()
	args := append([]string{bundle, archive, filepath.Join(t.TempDir(), "v"+k8sVersion)}, more...)
	out := run(t, repo, filepath.Join(repo, "tools/bundle/scripts/management-bundle.sh"), args...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

// kube runs the bundle's kubectl against one cluster.
type kube struct {
	t          *testing.T
	kubectl    string
	kubeconfig string
}

func (k kube) run(args ...string) string {
	k.t.Helper()
	return run(k.t, "", k.kubectl, append([]string{"--kubeconfig", k.kubeconfig}, args...)...)
}

func (k kube) try(args ...string) (string, error) {
	return runErr("", nil, k.kubectl, append([]string{"--kubeconfig", k.kubeconfig}, args...)...)
}

func (k kube) apply(yaml string) {
	k.t.Helper()
	if out, err := runErr("", []byte(yaml), k.kubectl, "--kubeconfig", k.kubeconfig, "apply", "-f", "-"); err != nil {
		k.t.Fatalf("kubectl apply: %v\n%s\n%s", err, out, yaml)
	}
}

// eggoCluster reads the EggoCluster (nil once it is gone).
func (k kube) eggoCluster(ns, name string) *v1alpha1.EggoCluster {
	k.t.Helper()
	out, err := k.try("-n", ns, "get", "eggocluster", name, "-o", "json")
	if err != nil {
		if strings.Contains(out, "NotFound") {
			return nil
		}
		k.t.Fatalf("get eggocluster %s: %v\n%s", name, err, out)
	}
	var c v1alpha1.EggoCluster
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		k.t.Fatal(err)
	}
	return &c
}

// jobs lists the cluster's Jobs of a phase.
func (k kube) jobs(ns, cluster, phase string) []job {
	k.t.Helper()
	out := k.run("-n", ns, "get", "jobs", "-l", v1alpha1.LabelCluster+"="+cluster+","+v1alpha1.LabelPhase+"="+phase, "-o", "json")
	var list struct {
		Items []job `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		k.t.Fatal(err)
	}
	return list.Items
}

// job is the part of a Job the test reads: its name and annotations.
type job struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
}

func condition(c *v1alpha1.EggoCluster, typ string) metav1.Condition {
	for _, cd := range c.Status.Conditions {
		if cd.Type == typ {
			return cd
		}
	}
	return metav1.Condition{Type: typ, Status: metav1.ConditionUnknown}
}

func isTrue(c *v1alpha1.EggoCluster, typ string) bool {
	return condition(c, typ).Status == metav1.ConditionTrue
}

// describe is the EggoCluster's status in a line per condition, for
// failure messages.
func describe(c *v1alpha1.EggoCluster) string {
	if c == nil {
		return "(gone)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "generation %d observed %d plan %.12s applied %.12s failed %.12s job %q failure %q\n",
		c.Generation, c.Status.ObservedGeneration, c.Status.LastPlanHash, c.Status.LastAppliedPlanHash,
		c.Status.LastFailedPlanHash, c.Status.ActiveJob, c.Status.LastFailure)
	for _, cd := range c.Status.Conditions {
		fmt.Fprintf(&b, "  %s=%s %s: %s (gen %d)\n", cd.Type, cd.Status, cd.Reason, cd.Message, cd.ObservedGeneration)
	}
	return b.String()
}

// waitFor polls until ok says done, failing with its last word and what
// diag adds after timeout.
func waitFor(t *testing.T, what string, timeout time.Duration, ok func() (bool, string), diag func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		done, last := ok()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s: %s\n%s", what, timeout, last, diag())
		}
		time.Sleep(2 * time.Second)
	}
}

// base64Run is a stretch of base64 long enough to be a key or a
// fingerprint: random material that can hold a short name by chance.
var base64Run = regexp.MustCompile(`[A-Za-z0-9+/=]{20,}`)

// namesWord reports whether text holds word as a word of its own outside
// base64 runs: a host key's fingerprint (SHA256:…wm…) names no node.
func namesWord(text, word string) bool {
	rest := base64Run.ReplaceAllString(text, " ")
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(word) + `\b`).MatchString(rest)
}
