package host

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

// hostFixture is a package bundle and a target root, both temp dirs. The
// bundle mirrors the target root: packages/amd64/$ROOT/usr/bin/x is
// installed at $ROOT/usr/bin/x, so nothing is ever written outside temp
// dirs whatever the transport.
type hostFixture struct {
	t        *testing.T
	packages string
	root     string
	host     *Host
}

func newHostFixture(t *testing.T) *hostFixture {
	t.Helper()
	f := &hostFixture{t: t, packages: t.TempDir(), root: t.TempDir(), host: New()}
	f.host.backupDir = filepath.Join(f.root, "var/lib/eggo/backup")
	f.host.root = f.root
	return f
}

// bundle writes a bundle file for arch at rel (relative to the target root).
func (f *hostFixture) bundle(arch, rel, content string, mode fs.FileMode) {
	f.t.Helper()
	resourcestest.WriteFile(f.t, filepath.Join(f.packages, arch, f.root, rel), content, mode)
}

// onHost writes a file on the "host", under the target root.
func (f *hostFixture) onHost(rel, content string) {
	f.t.Helper()
	resourcestest.WriteFile(f.t, f.path(rel), content, 0o644)
}

func (f *hostFixture) path(rel string) string { return filepath.Join(f.root, rel) }

func (f *hostFixture) read(rel string) string {
	f.t.Helper()
	b, err := os.ReadFile(f.path(rel))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// cluster has one node per name, all reached through typ.
func (f *hostFixture) cluster(typ string, names ...string) *resources.Cluster {
	c := &resources.Cluster{Name: "test", Packages: f.packages}
	for _, n := range names {
		c.Nodes = append(c.Nodes, resources.Node{
			Name: n, Source: "test.hcl:1", Address: "10.77.0.11", Roles: []string{"worker"},
			Connection: resources.Connection{Type: typ},
		})
	}
	return c
}

// desired expands c and returns its only host.
func (f *hostFixture) desired(c *resources.Cluster) resources.Desired {
	f.t.Helper()
	ds, err := f.host.Expand(c)
	if err != nil {
		f.t.Fatal(err)
	}
	if len(ds) != 1 {
		f.t.Fatalf("Expand returned %d hosts, want 1", len(ds))
	}
	return ds[0]
}

// snapshot lists every path under the root with its type, mode and
// content hash: two snapshots are equal when the tree is byte-for-byte
// the same.
func (f *hostFixture) snapshot() string {
	f.t.Helper()
	var lines []string
	err := filepath.WalkDir(f.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %s", strings.TrimPrefix(p, f.root), info.Mode())
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			line += " " + hex.EncodeToString(sum[:])
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// createdPaths lists the created attribute as "type path" lines, relative to root.
func (f *hostFixture) createdPaths(a resources.Attrs) []string {
	var out []string
	for _, e := range a[hostCreated].([]any) {
		m := e.(map[string]any)
		out = append(out, m["type"].(string)+" "+strings.TrimPrefix(m["path"].(string), f.root))
	}
	return out
}

func reasonCodes(rs []resources.Reason) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Code)
	}
	return out
}

// symlinkDir puts a symlink to a directory into the amd64 bundle, which
// cannot be installed as a file.
func symlinkDir(f *hostFixture) error {
	link := filepath.Join(f.packages, "amd64", f.root, "usr/lib/link")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	return os.Symlink(f.packages, link)
}
