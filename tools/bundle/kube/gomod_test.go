// Package kube holds one test-only Go module per Kubernetes version
// (kube/vX.Y.Z, written by gen-gomod.sh). This test checks those modules
// against kubernetes' own go.mod.
package kube

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	stagingReplace = regexp.MustCompile(`(?m)^\s*(k8s\.io/[a-z0-9-]+) => \./staging/`)
	pinnedReplace  = regexp.MustCompile(`(?m)^\s*(k8s\.io/[a-z0-9-]+) => (k8s\.io/[a-z0-9-]+) (v\S+)$`)
)

// TestEveryStagingModuleIsPinned: a staging module left unpinned resolves to
// v0.0.0 and the build fails; one pinned to another release's tag builds a
// binary that is not the version it claims.
func TestEveryStagingModuleIsPinned(t *testing.T) {
	dirs, _ := filepath.Glob("v1.*")
	if len(dirs) < 2 {
		t.Fatalf("want a module for each of two Kubernetes versions, found %v", dirs)
	}
	for _, dir := range dirs {
		version := filepath.Base(dir)
		gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(gomod), "\nrequire k8s.io/kubernetes "+version+"\n") {
			t.Errorf("%s/go.mod does not require k8s.io/kubernetes %s", dir, version)
		}
		if _, err := os.Stat(filepath.Join(dir, "go.sum")); err != nil {
			t.Errorf("%s has no go.sum: %v", dir, err)
		}
		pinned := map[string]string{}
		for _, m := range pinnedReplace.FindAllStringSubmatch(string(gomod), -1) {
			if m[1] != m[2] {
				t.Errorf("%s/go.mod replaces %s with another module, %s", dir, m[1], m[2])
			}
			pinned[m[1]] = m[3]
		}
		want := "v0." + strings.TrimPrefix(version, "v1.")
		for mod, v := range pinned {
			if v != want {
				t.Errorf("%s/go.mod pins %s to %s, want %s", dir, mod, v, want)
			}
		}

		// kubernetes' own go.mod names the staging modules; it is in the
		// module cache once the bundle was built, else it is fetched.
		// (go list -m fetches only the .info and .mod files, not the source.)
		out, err := exec.Command("go", "list", "-m", "-json", "k8s.io/kubernetes@"+version).Output()
		var info struct{ GoMod string }
		if err == nil {
			err = json.Unmarshal(out, &info)
		}
		if err != nil || info.GoMod == "" {
			t.Skipf("k8s.io/kubernetes@%s's go.mod is not reachable here: %v", version, err)
		}
		kubeMod, err := os.ReadFile(info.GoMod)
		if err != nil {
			t.Fatal(err)
		}
		staging := stagingReplace.FindAllStringSubmatch(string(kubeMod), -1)
		if len(staging) < 20 {
			t.Fatalf("found only %d staging modules in %s", len(staging), info.GoMod)
		}
		for _, m := range staging {
			if _, ok := pinned[m[1]]; !ok {
				t.Errorf("%s/go.mod does not pin staging module %s (run gen-gomod.sh %s)", dir, m[1], version)
			}
		}
	}
}
