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
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
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

// Root is the checkout's top directory (where go.mod is): the first
// directory up from the working directory — a test's is its package's —
// that has eggo's go.mod. Not this file's path: under -trimpath (make test's
// GOFLAGS) that is the package's import path, not a directory.
func Root() string {
	dir, err := os.Getwd()
	if err != nil {
		panic("eggotest: no working directory: " + err.Error())
	}
	for d := dir; ; d = filepath.Dir(d) {
		if mod, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && bytes.HasPrefix(mod, []byte("module "+modulePath+"\n")) {
			return d
		}
		if filepath.Dir(d) == d {
			panic("eggotest: no go.mod of " + modulePath + " above " + dir)
		}
	}
}

const modulePath = "github.com/eggo-project/eggo"

// Bundle is make bundle's offline bundle of a Kubernetes version ("1.31.4"),
// under $EGGO_BUNDLE_DIR or /var/cache/eggo/bundle. A test that needs one
// deploys real Kubernetes on the testbed: it is skipped with -short, and
// fails, naming the target to run, when the bundle was not built.
func Bundle(t testing.TB, version string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("Kubernetes on testbed hosts: not with -short")
	}
	root := os.Getenv("EGGO_BUNDLE_DIR")
	if root == "" {
		root = "/var/cache/eggo/bundle"
	}
	d := filepath.Join(root, "v"+version)
	if _, err := os.Stat(filepath.Join(d, "MANIFEST")); err != nil {
		t.Fatalf("no bundle at %s: run `make bundle` first", d)
	}
	return d
}
