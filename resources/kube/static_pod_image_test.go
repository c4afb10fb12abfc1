package kube

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources/resourcestest"
)

// TestImportImage runs importImage's shell with a stand-in for ctr (the
// real one needs containerd: the testbed tests run it) and a real archive:
// containerd's image is replaced when its digest is not the archive's, or
// it has none, and left alone when it is the bundle's, or when there is no
// archive to compare with.
func TestImportImage(t *testing.T) {
	const image = "registry.k8s.io/etcd:3.5.15-0"
	const ours = "sha256:3424e6edf5ca2d9bd531dd7069f3ea2ca0d325856f898c2d44e3f969487bff61"
	dir := t.TempDir()
	archive := filepath.Join(dir, "etcd.tar")
	resourcestest.WriteOCIIndex(t, archive, `{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"`+ours+`","size":401}]}`)
	for _, c := range []struct {
		name, have, archive string
		imports, fails      bool
	}{
		{"the bundle's image", ours, archive, false, false},
		{"another image under the name", "sha256:981503243cb80ef5bb8a489773c6cd7e58908d63bdba9a91051008637575c209", archive, true, false},
		{"no image", "", archive, true, false},
		{"no archive, an image", "sha256:9815", filepath.Join(dir, "missing.tar"), false, false},
		{"no archive, no image", "", filepath.Join(dir, "missing.tar"), false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "ctr.log")
			// ctr images ls name==X prints a header, then the image's row.
			ctr := `ctr() { case "$4" in ls) echo "REF TYPE DIGEST SIZE"; [ -z "$HAVE" ] || echo "${5#name==} manifest $HAVE 24MiB";; import) echo "import $5" >> "$LOG";; esac; }` + "\n"
			cmd := exec.Command("bash", "-c", ctr+"set -e\n"+importImage(image, c.archive))
			cmd.Env = append(os.Environ(), "HAVE="+c.have, "LOG="+log)
			out, err := cmd.CombinedOutput()
			if (err != nil) != c.fails {
				t.Fatalf("error %v, want failure %v: %s", err, c.fails, out)
			}
			if c.fails && !strings.Contains(string(out), "containerd has no image") {
				t.Errorf("the failure does not say why: %s", out)
			}
			logged, _ := os.ReadFile(log)
			if got := strings.Contains(string(logged), "import "+c.archive); got != c.imports {
				t.Errorf("imported: %v, want %v (%s)", got, c.imports, logged)
			}
		})
	}
}
