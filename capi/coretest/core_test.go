// Package coretest runs eggo's three providers beside Cluster API's own
// core manager (v1.14.2, built offline by `make capi-parts`) against a
// real kube-apiserver with both sets of CRDs: the contract as core
// enforces it, not as eggo reads it. The test plays only what is not
// there — the GitOps controller's Jobs (a plan waiting for approval, an
// apply's status, the kubeconfig it publishes) and the workload cluster's
// kubelets (a Node per Machine, registered with its providerID; the
// workload cluster is the same API server).
package coretest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/eggo-project/eggo/capi/internal/testenv"
)

// capiParts is where `make capi-parts` puts Cluster API's binaries.
func capiParts(t *testing.T) (core, clusterctl string) {
	t.Helper()
	dir := os.Getenv("EGGO_CAPI_PARTS")
	if dir == "" {
		dir = "/var/cache/eggo/capi/v1.14.2"
	}
	core, clusterctl = filepath.Join(dir, "bin", "cluster-api-controller"), filepath.Join(dir, "bin", "clusterctl")
	for _, b := range []string{core, clusterctl} {
		if _, err := os.Stat(b); err != nil {
			t.Skipf("SKIPPED: no %s (run `make capi-parts` at the repository's root, or set EGGO_CAPI_PARTS): %v", b, err)
		}
	}
	return core, clusterctl
}

// start runs a program until the test ends, its output in the test's log
// when it fails.
func start(t *testing.T, name string, env []string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	log, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			data, _ := os.ReadFile(log.Name())
			if len(data) > 6000 {
				data = data[len(data)-6000:]
			}
			t.Logf("%s's log (end):\n%s", name, data)
		}
	})
}

// buildEggoCAPI builds eggo-capi from this module.
func buildEggoCAPI(t *testing.T, e *testenv.Env) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "eggo-capi")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/eggo-capi")
	cmd.Dir = e.ModuleDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build eggo-capi: %v\n%s", err, out)
	}
	return bin
}
