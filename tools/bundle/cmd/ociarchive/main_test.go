package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entries reads an archive written by run: the layer's headers by name and
// the image config.
func entries(t *testing.T, archive string) (map[string]*tar.Header, map[string]any) {
	t.Helper()
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	blobs := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		blobs[h.Name] = b
	}
	get := func(digest string) []byte { return blobs["blobs/sha256/"+strings.TrimPrefix(digest, "sha256:")] }
	var idx struct{ Manifests []struct{ Digest string } }
	var man struct {
		Config struct{ Digest string }
		Layers []struct{ Digest string }
	}
	var cfg struct{ Config map[string]any }
	if err := json.Unmarshal(blobs["index.json"], &idx); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(get(idx.Manifests[0].Digest), &man); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(get(man.Config.Digest), &cfg); err != nil {
		t.Fatal(err)
	}
	headers := map[string]*tar.Header{}
	lr := tar.NewReader(bytes.NewReader(get(man.Layers[0].Digest)))
	for {
		h, err := lr.Next()
		if err == io.EOF {
			return headers, cfg.Config
		}
		if err != nil {
			t.Fatal(err)
		}
		headers[h.Name] = h
	}
}

func TestTreeAndConfigFlags(t *testing.T) {
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "bin"), 0o755))
	must(os.WriteFile(filepath.Join(root, "bin/busybox"), []byte("bb"), 0o755))
	must(os.Symlink("busybox", filepath.Join(root, "bin/sh")))
	must(os.Mkdir(filepath.Join(root, "tmp"), 0o755))
	must(os.Chmod(filepath.Join(root, "tmp"), 0o777|os.ModeSticky))
	must(os.WriteFile(filepath.Join(root, "nnp"), []byte("n"), 0o755))
	must(os.Chmod(filepath.Join(root, "nnp"), 0o755|os.ModeSetuid))
	extra := filepath.Join(t.TempDir(), "agnhost")
	must(os.WriteFile(extra, []byte("a"), 0o755))
	out := filepath.Join(t.TempDir(), "img.tar")

	must(run([]string{"-name", "registry.k8s.io/e2e-test-images/nginx:1.14-4", "-o", out,
		"-cmd", `["nginx", "-g", "daemon off;"]`, "-entrypoint", "/bin/sh -c",
		"-env", "PATH=/usr/bin:/bin", "-env", "A=b c", "-workdir", "/srv", "-user", "1234",
		"-tree", root, extra + "=/agnhost"}))
	headers, cfg := entries(t, out)

	if h := headers["bin/sh"]; h == nil || h.Typeflag != tar.TypeSymlink || h.Linkname != "busybox" {
		t.Errorf("bin/sh = %+v, want a symlink to busybox", h)
	}
	if h := headers["tmp/"]; h == nil || h.Mode != 0o1777 {
		t.Errorf("tmp/ = %+v, want mode 1777", h)
	}
	if h := headers["nnp"]; h == nil || h.Mode != 0o4755 {
		t.Errorf("nnp = %+v, want mode 4755", h)
	}
	if h := headers["agnhost"]; h == nil || h.Typeflag != tar.TypeReg {
		t.Errorf("agnhost = %+v", h)
	}
	got, _ := json.Marshal(cfg)
	want := `{"Cmd":["nginx","-g","daemon off;"],"Entrypoint":["/bin/sh","-c"],"Env":["PATH=/usr/bin:/bin","A=b c"],"User":"1234","WorkingDir":"/srv"}`
	if string(got) != want {
		t.Errorf("config = %s, want %s", got, want)
	}
}

func TestBadArguments(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.tar")
	for name, args := range map[string][]string{
		"no files":     {"-name", "x:1", "-o", out},
		"bad json cmd": {"-name", "x:1", "-o", out, "-cmd", `["a"`, "-tree", t.TempDir()},
		"missing tree": {"-name", "x:1", "-o", out, "-tree", "/nonexistent/eggo"},
	} {
		if err := run(args); err == nil {
			t.Errorf("%s: run accepted %q", name, args)
		}
	}
}
