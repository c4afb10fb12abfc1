package scripts

import (
	"archive/tar"
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEggoImage builds eggo's own image (eggo-image.sh: a go build of eggo
// and eggo-controller, seconds with a warm build cache) into a temporary
// directory and reads the archive back: index.json names it eggo.io/eggo:TAG,
// its one layer holds both binaries, static and executable, a passwd with
// the nonroot user and writable /tmp and home; the config runs
// eggo-controller as 65532. The binaries, taken from the layer, run. A
// second run reuses the first's archive.
func TestEggoImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds eggo")
	}
	root := filepath.Join(t.TempDir(), "eggo-image")
	archive := runEggoImage(t, root)
	if filepath.Base(archive) != "eggo.tar" || filepath.Dir(filepath.Dir(archive)) != root {
		t.Fatalf("archive at %s, want %s/KEY/eggo.tar", archive, root)
	}
	nameFile, err := os.ReadFile(filepath.Join(filepath.Dir(archive), "name"))
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSpace(string(nameFile))
	if !strings.HasPrefix(name, "eggo.io/eggo:") || len(name) == len("eggo.io/eggo:") {
		t.Fatalf("image name %q, want eggo.io/eggo:TAG", name)
	}
	tag := strings.TrimPrefix(name, "eggo.io/eggo:")

	blobs := readTar(t, archive)
	var index struct {
		Manifests []struct {
			Digest      string            `json:"digest"`
			Annotations map[string]string `json:"annotations"`
		} `json:"manifests"`
	}
	unmarshal(t, blobs["index.json"], &index)
	if len(index.Manifests) != 1 || index.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != name ||
		index.Manifests[0].Annotations["io.containerd.image.name"] != name {
		t.Fatalf("index.json %s does not name %s", blobs["index.json"], name)
	}
	var manifest struct {
		Config struct{ Digest string }   `json:"config"`
		Layers []struct{ Digest string } `json:"layers"`
	}
	unmarshal(t, blob(t, blobs, index.Manifests[0].Digest), &manifest)
	var config struct {
		Config struct {
			User       string
			Env        []string
			Entrypoint []string
		} `json:"config"`
	}
	unmarshal(t, blob(t, blobs, manifest.Config.Digest), &config)
	if config.Config.User != "65532:65532" || strings.Join(config.Config.Entrypoint, " ") != "/usr/local/bin/eggo-controller" {
		t.Fatalf("config: user %q, entrypoint %q; want 65532:65532 running eggo-controller", config.Config.User, config.Config.Entrypoint)
	}
	if !contains(config.Config.Env, "HOME=/home/nonroot") {
		t.Errorf("environment %q has no HOME=/home/nonroot", config.Config.Env)
	}
	if len(manifest.Layers) != 1 {
		t.Fatalf("%d layers, want 1", len(manifest.Layers))
	}
	layer := readTarHeaders(t, blob(t, blobs, manifest.Layers[0].Digest))

	bin := t.TempDir()
	for _, b := range []string{"eggo", "eggo-controller", "eggo-capi"} {
		f, ok := layer["usr/local/bin/"+b]
		if !ok || f.hdr.Typeflag != tar.TypeReg || f.hdr.Mode&0o111 != 0o111 {
			t.Fatalf("/usr/local/bin/%s is not an executable file in the layer (%+v)", b, f.hdr)
		}
		path := filepath.Join(bin, b)
		if err := os.WriteFile(path, f.data, 0o755); err != nil {
			t.Fatal(err)
		}
		info, err := buildinfo.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if setting(info, "CGO_ENABLED") != "0" {
			t.Errorf("%s was built with CGO_ENABLED=%q, want 0 (static)", b, setting(info, "CGO_ENABLED"))
		}
	}
	if p := layer["etc/passwd"]; !strings.Contains(string(p.data), "nonroot:x:65532:65532:") {
		t.Errorf("/etc/passwd has no nonroot user 65532:\n%s", p.data)
	}
	for _, dir := range []string{"tmp", "home/nonroot"} {
		if d, ok := layer[dir+"/"]; !ok || d.hdr.Typeflag != tar.TypeDir || d.hdr.Mode&0o1777 != 0o1777 {
			t.Errorf("/%s is not a writable directory (mode 1777) in the layer", dir)
		}
	}

	out, err := exec.Command(filepath.Join(bin, "eggo"), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "eggo v") || !strings.Contains(string(out), "+"+tag+" ") {
		t.Errorf("eggo version from the layer: %v: %q, want the build's version +%s", err, out, tag)
	}
	out, err = exec.Command(filepath.Join(bin, "eggo-controller"), "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "-health-probe-bind-address") {
		t.Errorf("eggo-controller --help from the layer: %v: %q", err, out)
	}
	out, err = exec.Command(filepath.Join(bin, "eggo-capi"), "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "-provider") {
		t.Errorf("eggo-capi --help from the layer: %v: %q", err, out)
	}

	// A second build of the same sources is the first's archive, untouched.
	before, _ := os.Stat(archive)
	if again := runEggoImage(t, root); again != archive {
		t.Fatalf("second run: %s, want the cached %s", again, archive)
	}
	if after, _ := os.Stat(archive); !after.ModTime().Equal(before.ModTime()) {
		t.Error("the cached archive was rewritten")
	}
}

func runEggoImage(t *testing.T, root string) string {
	t.Helper()
	cmd := exec.Command("./eggo-image.sh", root)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("eggo-image.sh: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

type tarFile struct {
	hdr  *tar.Header
	data []byte
}

func readTarHeaders(t *testing.T, data []byte) map[string]tarFile {
	t.Helper()
	files := map[string]tarFile{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[hdr.Name] = tarFile{hdr, b}
	}
}

func readTar(t *testing.T, path string) map[string][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for name, f := range readTarHeaders(t, data) {
		out[name] = f.data
	}
	return out
}

func blob(t *testing.T, blobs map[string][]byte, digest string) []byte {
	t.Helper()
	b, ok := blobs["blobs/sha256/"+strings.TrimPrefix(digest, "sha256:")]
	if !ok {
		t.Fatalf("no blob %s in the archive", digest)
	}
	return b
}

func unmarshal(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
}

func setting(info *buildinfo.BuildInfo, key string) string {
	for _, s := range info.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
