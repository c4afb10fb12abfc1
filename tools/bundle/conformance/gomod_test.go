// Package conformance holds one test-only Go module per Kubernetes version
// (conformance/vX.Y.Z, written by gen-gomod.sh) that builds the conformance
// tools: e2e.test, ginkgo and agnhost (scripts/conformance.sh). This test
// checks each module and its generated lists against the bundle's module for
// the same version and against kubernetes' own files, without building.
package conformance

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	requireLine = regexp.MustCompile(`(?m)^(?:require )?\s*([^\s=]+) (v\S+)(?: // indirect)?$`)
	replaceLine = regexp.MustCompile(`(?m)^\s*(\S+) => (\S+ v\S+)$`)
	importLine  = regexp.MustCompile(`(?m)^\s*_ "(\S+)"$`)
	imageRef    = regexp.MustCompile(`^[a-z0-9.-]+(/[a-z0-9._-]+)+(:[\w.-]+|@sha256:[0-9a-f]{64})$`)
)

// The commands scripts/conformance.sh builds: tools.go must name them, or go
// mod tidy could drop what they need from go.mod and go.sum, and the script
// must still build them.
var commands = []string{
	"k8s.io/kubernetes/test/e2e",
	"github.com/onsi/ginkgo/v2/ginkgo",
	"k8s.io/kubernetes/test/images/agnhost",
}

func TestModules(t *testing.T) {
	dirs, _ := filepath.Glob("v1.*")
	if len(dirs) == 0 {
		t.Fatal("no conformance module (conformance/v1.*)")
	}
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) { checkModule(t, dir) })
	}
}

func checkModule(t *testing.T, dir string) {
	version := filepath.Base(dir)
	gomod := read(t, filepath.Join(dir, "go.mod"))
	requires := matches(requireLine, gomod)
	if requires["k8s.io/kubernetes"] != version {
		t.Errorf("%s/go.mod requires k8s.io/kubernetes %q, want %s", dir, requires["k8s.io/kubernetes"], version)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.sum")); err != nil {
		t.Errorf("%s has no go.sum: %v", dir, err)
	}

	// The same staging tags as the bundle's Kubernetes binaries: e2e.test
	// built against other client libraries would test another release.
	kubeMod := read(t, filepath.Join("..", "kube", version, "go.mod"))
	got, want := matches(replaceLine, gomod), matches(replaceLine, kubeMod)
	if len(want) < 20 {
		t.Fatalf("found only %d replace lines in kube/%s/go.mod", len(want), version)
	}
	for mod, to := range want {
		if got[mod] != to {
			t.Errorf("%s/go.mod replaces %s with %q, kube/%s/go.mod with %q", dir, mod, got[mod], version, to)
		}
	}
	for mod := range got {
		if _, ok := want[mod]; !ok {
			t.Errorf("%s/go.mod replaces %s, kube/%s/go.mod does not", dir, mod, version)
		}
	}

	imports := importLine.FindAllStringSubmatch(read(t, filepath.Join(dir, "tools.go")), -1)
	script := read(t, filepath.Join("..", "scripts", "conformance.sh"))
	for _, cmd := range commands {
		if !slices.ContainsFunc(imports, func(m []string) bool { return m[1] == cmd }) {
			t.Errorf("%s/tools.go does not import %s", dir, cmd)
		}
		if !strings.Contains(script, " "+cmd+")") {
			t.Errorf("scripts/conformance.sh does not build %s", cmd)
		}
	}

	// The lists are e2e.test's: scripts/conformance.sh writes them on a
	// module's first build. A module not built yet has neither (and no
	// conformance-images.txt, which is written from them by hand).
	var tests []string
	if built(t, dir) {
		tests = lines(t, filepath.Join(dir, "conformance-tests.txt"))
		for _, name := range tests {
			if !strings.Contains(name, "[Conformance]") {
				t.Errorf("%s/conformance-tests.txt: %q is not a [Conformance] test", dir, name)
			}
		}
		for _, ref := range lines(t, filepath.Join(dir, "images.txt")) {
			if !imageRef.MatchString(ref) {
				t.Errorf("%s/images.txt: %q is not an image reference with a tag or digest", dir, ref)
			}
		}
	} else {
		t.Logf("%s: no lists yet (scripts/conformance.sh %s writes them)", dir, version)
	}

	checkAgainstKubernetes(t, dir, version, requires, tests)
}

// checkAgainstKubernetes compares the module with kubernetes' own go.mod (the
// ginkgo version) and the list of tests with its conformance.yaml, when they
// are in the module cache (go list -m fetches only the .info and .mod files).
func checkAgainstKubernetes(t *testing.T, dir, version string, requires map[string]string, tests []string) {
	out, err := exec.Command("go", "list", "-m", "-json", "k8s.io/kubernetes@"+version).Output()
	var info struct{ GoMod, Dir string }
	if err == nil {
		err = json.Unmarshal(out, &info)
	}
	if err != nil || info.GoMod == "" {
		t.Skipf("k8s.io/kubernetes@%s's go.mod is not reachable here: %v", version, err)
	}
	kubeRequires := matches(requireLine, read(t, info.GoMod))
	const ginkgo = "github.com/onsi/ginkgo/v2"
	if kubeRequires[ginkgo] == "" || requires[ginkgo] != kubeRequires[ginkgo] {
		t.Errorf("%s/go.mod requires %s %q, kubernetes %s requires %q", dir, ginkgo, requires[ginkgo], version, kubeRequires[ginkgo])
	}

	if tests == nil {
		return
	}
	if info.Dir == "" {
		t.Skipf("k8s.io/kubernetes@%s's source is not in the module cache", version)
	}
	yaml := read(t, filepath.Join(info.Dir, "test", "conformance", "testdata", "conformance.yaml"))
	want := codenames(yaml)
	if len(want) < 300 {
		t.Fatalf("found only %d codenames in kubernetes %s's conformance.yaml", len(want), version)
	}
	if !slices.Equal(tests, want) {
		t.Errorf("%s/conformance-tests.txt has %d tests, kubernetes' conformance.yaml %d; only in the file: %q; only in the yaml: %q",
			dir, len(tests), len(want), minus(tests, want), minus(want, tests))
	}
}

// codenames returns the sorted codename values of conformance.yaml: YAML
// scalars in single quotes, folded over lines (two quotes stand for one; a
// line break with its indent is one space).
func codenames(yaml string) []string {
	var names []string
	for _, part := range strings.Split(yaml, "\n  codename: '")[1:] {
		var b strings.Builder
		for i := 0; i < len(part); i++ {
			if part[i] == '\'' {
				if i+1 < len(part) && part[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				break
			}
			b.WriteByte(part[i])
		}
		names = append(names, strings.Join(strings.Fields(b.String()), " "))
	}
	slices.Sort(names)
	return names
}

func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// built says whether dir has e2e.test's two lists: both, or neither and no
// conformance-images.txt.
func built(t *testing.T, dir string) bool {
	t.Helper()
	have := map[string]bool{}
	for _, f := range []string{"conformance-tests.txt", "images.txt", "conformance-images.txt"} {
		_, err := os.Stat(filepath.Join(dir, f))
		have[f] = err == nil
	}
	if have["conformance-tests.txt"] != have["images.txt"] || have["conformance-images.txt"] && !have["images.txt"] {
		t.Errorf("%s has %v: want conformance-tests.txt and images.txt (scripts/conformance.sh), or none of the three", dir, have)
	}
	return have["conformance-tests.txt"] || have["images.txt"]
}

// lines reads a generated list: non-empty, sorted, no duplicates.
func lines(t *testing.T, path string) []string {
	t.Helper()
	l := strings.Split(strings.TrimSuffix(read(t, path), "\n"), "\n")
	if len(l) == 0 || l[0] == "" {
		t.Errorf("%s is empty", path)
	}
	if !slices.IsSorted(l) || len(slices.Compact(slices.Clone(l))) != len(l) {
		t.Errorf("%s is not sorted and unique (regenerate it with scripts/conformance.sh)", path)
	}
	return l
}

func matches(re *regexp.Regexp, s string) map[string]string {
	m := map[string]string{}
	for _, sub := range re.FindAllStringSubmatch(s, -1) {
		m[sub[1]] = sub[2]
	}
	return m
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
