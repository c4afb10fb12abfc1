package resources

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestSourceRelease(t *testing.T) {
	for src, want := range map[string]string{
		"go.etcd.io/etcd/server/v3@v3.6.8 (etcdmain, in tools/bundle/etcd/v3.6.8)":     "3.6.8",
		"go.etcd.io/etcd/server/v3@v3.7.0 as registry.k8s.io/etcd:3.7.0-0":             "3.7.0",
		"github.com/containerd/containerd/v2@v2.3.7":                                   "2.3.7",
		"debian:etcd-server 3.4.23-4+b4":                                               "3.4.23",
		"debian:containerd 1.6.20~ds1-1+deb12u3":                                       "1.6.20",
		"debian:runc 1:1.1.5+ds1-1+deb12u1":                                            "1.1.5",
		"debian:etcd-server":                                                           "",
		"built by hand":                                                                "",
		"k8s.io/kubernetes@v1.36.5":                                                    "1.36.5",
		"github.com/flannel-io/flannel@v0.28.10 (without the tencentvpc and udp ones)": "0.28.10",
	} {
		if got := SourceRelease(src); got != want {
			t.Errorf("SourceRelease(%q) = %q, want %q", src, got, want)
		}
	}
}

// TestBundleProgramRelease: the MANIFEST's word first; without it, the
// program's own Go build information (this test binary, and a module it
// was built with); else nothing.
func TestBundleProgramRelease(t *testing.T) {
	// A program built with a versioned module: golang.org/x/crypto at the
	// version eggo's go.mod requires.
	self := filepath.Join(t.TempDir(), "releasedprog")
	if out, err := exec.Command("go", "build", "-o", self, "./testdata/releasedprog").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/releasedprog: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "golang.org/x/crypto").Output()
	if err != nil {
		t.Fatal(err)
	}
	dep := struct{ Path, Version string }{"golang.org/x/crypto", strings.TrimSpace(string(out))}
	root := t.TempDir()
	bin := filepath.Join(root, "amd64", "usr", "local", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, self, filepath.Join(bin, "prog"))
	copyFile(t, self, filepath.Join(bin, "debian-prog"))
	manifest := "# version: v1.36.5\n# from: amd64/usr/local/bin/debian-prog debian:etcd-server 3.4.23-4+b4\n0123  amd64/usr/local/bin/debian-prog\n"
	if err := os.WriteFile(filepath.Join(root, "MANIFEST"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &Cluster{Packages: root}
	n := Node{Name: "m0"}
	want := SourceRelease("m@" + dep.Version)
	if got := BundleProgramRelease(c, n, "usr/local/bin/prog", dep.Path); got != want {
		t.Errorf("from the build information of %s: %q, want %q", dep.Path, got, want)
	}
	if got := BundleProgramRelease(c, n, "usr/local/bin/debian-prog", dep.Path); got != "3.4.23" {
		t.Errorf("with a MANIFEST line: %q, want 3.4.23 (the MANIFEST's word first)", got)
	}
	if got := BundleProgramRelease(c, n, "usr/local/bin/prog", "example.com/not/linked"); got != "" {
		t.Errorf("a module the program was not built with: %q, want none", got)
	}
	if got := BundleProgramRelease(c, n, "usr/local/bin/missing", dep.Path); got != "" {
		t.Errorf("a missing program: %q, want none", got)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
