package scripts

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// minorRow is a row of ../minors.tsv (its header says what each field is).
type minorRow struct {
	minor, runtime, etcd, etcdImage, cni, coredns, pause string
}

func readMinors(t *testing.T) []minorRow {
	t.Helper()
	data, err := os.ReadFile("../minors.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var rows []minorRow
	for i, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 7 || !regexp.MustCompile(`^1\.[0-9]+$`).MatchString(f[0]) {
			t.Fatalf("minors.tsv:%d: want 7 fields, the first 1.Y: %q", i+1, line)
		}
		rows = append(rows, minorRow{f[0], f[1], f[2], f[3], f[4], f[5], f[6]})
	}
	if len(rows) == 0 {
		t.Fatal("minors.tsv has no rows")
	}
	return rows
}

// eggo's own table (resources/release.go's kubernetesMinors), one row a line.
var releaseRow = regexp.MustCompile(`\{Minor: (\d+), Pause: "([^"]+)", Etcd: "([^"]+)", CoreDNS: "([^"]+)", ContainerdMajor: (\d)\}`)

// requires reports whether the go.mod at path requires module at version.
func requires(t *testing.T, path, module, version string) bool {
	t.Helper()
	mod, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v", err)
		return false
	}
	return regexp.MustCompile(`(?m)^\s*(require )?` + regexp.QuoteMeta(module) + ` ` + regexp.QuoteMeta(version) + `( // indirect)?$`).Match(mod)
}

// TestMinorsAreEggos: every row the bundle builds names the images eggo's
// components run for that minor (resources/release.go), and a module or a
// pinned hash for every release it builds from Go source.
func TestMinorsAreEggos(t *testing.T) {
	release, err := os.ReadFile("../../../resources/release.go")
	if err != nil {
		t.Fatal(err)
	}
	eggo := map[string][]string{}
	for _, m := range releaseRow.FindAllStringSubmatch(string(release), -1) {
		eggo["1."+m[1]] = m[2:]
	}
	if len(eggo) == 0 {
		t.Fatal("resources/release.go has no row this test can read (its format changed?)")
	}
	runtime, _ := os.ReadFile("runtime.sh")
	cni, _ := os.ReadFile("cni.sh")
	for _, r := range readMinors(t) {
		e, ok := eggo[r.minor]
		if !ok {
			t.Errorf("minors.tsv has %s, which resources/release.go's kubernetesMinors lacks", r.minor)
			continue
		}
		for _, c := range []struct{ what, bundle, eggo string }{
			{"pause", "registry.k8s.io/pause:" + r.pause, e[0]},
			{"etcd", "registry.k8s.io/etcd:" + strings.TrimPrefix(r.etcdImage, "v") + "-0", e[1]},
			{"CoreDNS", "registry.k8s.io/coredns/coredns:" + r.coredns, e[2]},
		} {
			if c.bundle != c.eggo {
				t.Errorf("%s: the bundle's %s image would be %s, eggo runs %s", r.minor, c.what, c.bundle, c.eggo)
			}
		}
		if want := map[bool]string{true: "1", false: "2"}[r.runtime == "debian"]; e[3] != want {
			t.Errorf("%s: runtime %s, but resources/release.go says ContainerdMajor %s", r.minor, r.runtime, e[3])
		}
		if !requires(t, filepath.Join("../etcd", r.etcdImage, "go.mod"), "go.etcd.io/etcd/server/v3", r.etcdImage) {
			t.Errorf("%s: etcd/%s/go.mod does not require go.etcd.io/etcd/server/v3 %s", r.minor, r.etcdImage, r.etcdImage)
		}
		if r.etcd != "debian" {
			for _, m := range []string{"go.etcd.io/etcd/server/v3", "go.etcd.io/etcd/etcdctl/v3"} {
				if !requires(t, filepath.Join("../etcd", r.etcd, "go.mod"), m, r.etcd) {
					t.Errorf("%s: etcd/%s/go.mod does not require %s %s (the hosts' etcd and etcdctl)", r.minor, r.etcd, m, r.etcd)
				}
			}
		}
		if !requires(t, filepath.Join("../coredns", r.coredns, "go.mod"), "github.com/coredns/coredns", r.coredns) {
			t.Errorf("%s: coredns/%s/go.mod does not require github.com/coredns/coredns %s", r.minor, r.coredns, r.coredns)
		}
		if r.runtime != "debian" {
			containerd, runc, _ := strings.Cut(r.runtime, "/")
			for _, m := range []string{"github.com/containerd/containerd/v2@" + containerd, "github.com/opencontainers/runc@" + runc} {
				if !bytes.Contains(runtime, []byte("["+m+"]=h1:")) {
					t.Errorf("%s: runtime.sh pins no hash for %s", r.minor, m)
				}
			}
		}
		if r.cni != "debian" && !bytes.Contains(cni, []byte("["+r.cni+"]=h1:")) {
			t.Errorf("%s: cni.sh pins no hash for github.com/containernetworking/plugins %s", r.minor, r.cni)
		}
	}
}

// TestEtcdMainsAreOne: every etcd release's module holds the same program
// (the environment file is eggo's only addition, whatever the release).
func TestEtcdMainsAreOne(t *testing.T) {
	dirs, _ := filepath.Glob("../etcd/v*")
	if len(dirs) < 2 {
		t.Fatalf("etcd modules: %v", dirs)
	}
	for _, f := range []string{"main.go", "main_test.go"} {
		first, err := os.ReadFile(filepath.Join(dirs[0], f))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dirs[1:] {
			if other, err := os.ReadFile(filepath.Join(d, f)); err != nil || !bytes.Equal(first, other) {
				t.Errorf("%s/%s differs from %s/%s (%v)", d, f, dirs[0], f, err)
			}
		}
	}
}
