// Package eggotest builds the eggo binary of this checkout for tests that
// run it as a program (a Job, a user at a shell), once per test binary:
// the first test that asks builds it, the others share it, and Main
// removes it when the package's tests are done.
//
//	func TestMain(m *testing.M) { os.Exit(eggotest.Main(m)) }
//
//	eggo := eggotest.Binary(t)
package eggotest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	dir   string // made by Main, removed when the tests end
	once  sync.Once
	built string
	err   error
)

// Main runs the tests of a package that uses Binary and removes the
// binary afterwards; TestMain returns its code to os.Exit.
func Main(m *testing.M) int {
	d, e := os.MkdirTemp("", "eggotest-")
	if e != nil {
		fmt.Fprintln(os.Stderr, "eggotest:", e)
		return 1
	}
	dir = d
	defer os.RemoveAll(d)
	return m.Run()
}

// Binary is the path of eggo built from this checkout (built on the
// first call).
func Binary(t testing.TB) string {
	t.Helper()
	if dir == "" {
		t.Fatal("eggotest.Binary needs the package's TestMain to call eggotest.Main")
	}
	once.Do(func() {
		built = filepath.Join(dir, "eggo")
		cmd := exec.Command("go", "build", "-o", built, ".")
		cmd.Dir = Root()
		if out, e := cmd.CombinedOutput(); e != nil {
			err = fmt.Errorf("go build of eggo in %s: %v\n%s", cmd.Dir, e, out)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return built
}

// Root is the checkout's top directory (where go.mod is).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Bundle is make bundle's offline bundle of a Kubernetes version ("1.36.5"),
// under $EGGO_BUNDLE_DIR or /var/cache/eggo/bundle. A test that needs one
// deploys real Kubernetes on the testbed: it is skipped with -short, and
// fails, naming the target to run, when the bundle was not built. Under
// make test, which builds the bundles but the default minor's in the
// background, it first waits for the version's build (waitBackground).
func Bundle(t testing.TB, version string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("Kubernetes on testbed hosts: not with -short")
	}
	root := os.Getenv("EGGO_BUNDLE_DIR")
	if root == "" {
		root = "/var/cache/eggo/bundle"
	}
	waitBackground(t, "v"+version)
	d := filepath.Join(root, "v"+version)
	if _, err := os.Stat(filepath.Join(d, "MANIFEST")); err != nil {
		t.Fatalf("no bundle at %s: run `make bundle` first", d)
	}
	return d
}

// BundlesPendingEnv names the directory where make test's background
// bundle builds say how they stand (tools/maketest/test.sh): VERSION.building
// while one builds, VERSION.failed when it failed, VERSION.log its output,
// pid the builder's process.
const BundlesPendingEnv = "EGGO_BUNDLES_PENDING"

// BackgroundPending says whether make test's background build of a bundle
// ("v1.37.2") has yet to finish.
func BackgroundPending(version string) bool {
	dir := os.Getenv(BundlesPendingEnv)
	if dir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, version+".building"))
	return err == nil
}

// waitBackground waits while the background build of version runs, and
// fails the test, with the build's last lines, when it failed or its
// builder is gone without finishing.
func waitBackground(t testing.TB, version string) {
	t.Helper()
	dir := os.Getenv(BundlesPendingEnv)
	if dir == "" {
		return
	}
	building, logFile := filepath.Join(dir, version+".building"), filepath.Join(dir, version+".log")
	began := time.Now()
	for waited := false; ; waited = true {
		if _, err := os.Stat(building); err != nil {
			if waited {
				t.Logf("waited %s for the %s bundle's background build", time.Since(began).Round(time.Second), version)
			}
			break
		}
		if !waited {
			t.Logf("waiting for the %s bundle, building in the background (%s)", version, logFile)
		}
		if !builderRuns(filepath.Join(dir, "pid")) {
			if _, err := os.Stat(building); err == nil {
				t.Fatalf("the background build of the %s bundle stopped without finishing:\n%s", version, tail(logFile))
			}
		}
		time.Sleep(pollEvery)
	}
	if _, err := os.Stat(filepath.Join(dir, version+".failed")); err == nil {
		t.Fatalf("the %s bundle did not build:\n%s", version, tail(logFile))
	}
}

// pollEvery is how often waitBackground looks.
var pollEvery = 5 * time.Second

// builderRuns says whether the process in pidFile still runs.
func builderRuns(pidFile string) bool {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return false
	}
	return syscall.Kill(pid, 0) == nil
}

// tail is a log's last 3000 bytes.
func tail(file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}
