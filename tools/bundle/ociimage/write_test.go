package ociimage

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func pauseImage() Image {
	return Image{
		Name:       "registry.k8s.io/pause:3.10",
		Entrypoint: []string{"/pause"},
		User:       "65535:65535",
		Files:      []File{{Path: "/pause", Mode: 0o755, Content: []byte("\x7fELF not really")}},
	}
}

// readTar returns the archive's regular files by name and its entry order.
func readTar(t *testing.T, data []byte) (map[string][]byte, map[string]*tar.Header, []string) {
	t.Helper()
	files := map[string][]byte{}
	headers := map[string]*tar.Header{}
	var order []string
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return files, headers, order
		}
		if err != nil {
			t.Fatalf("reading tar: %v", err)
		}
		order = append(order, hdr.Name)
		headers[hdr.Name] = hdr
		if hdr.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[hdr.Name] = b
		}
	}
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// blob returns a blob named by a descriptor, after checking that its
// content matches the descriptor's digest and size.
func blob(t *testing.T, files map[string][]byte, d descriptor) []byte {
	t.Helper()
	b, ok := files[blobPath(d.Digest)]
	if !ok {
		t.Fatalf("blob %s (%s) is not in the archive", d.Digest, d.MediaType)
	}
	if digestOf(b) != d.Digest || int64(len(b)) != d.Size {
		t.Fatalf("blob %s: content digest %s size %d, descriptor says size %d", d.Digest, digestOf(b), len(b), d.Size)
	}
	return b
}

func TestWriteIsAValidOCILayout(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, pauseImage()); err != nil {
		t.Fatal(err)
	}
	files, _, _ := readTar(t, buf.Bytes())

	if got := string(files["oci-layout"]); got != `{"imageLayoutVersion":"1.0.0"}` {
		t.Errorf("oci-layout = %s", got)
	}
	var idx index
	if err := json.Unmarshal(files["index.json"], &idx); err != nil {
		t.Fatalf("index.json: %v", err)
	}
	if idx.SchemaVersion != 2 || idx.MediaType != mediaTypeIndex || len(idx.Manifests) != 1 {
		t.Fatalf("index.json = %+v", idx)
	}
	md := idx.Manifests[0]
	for _, key := range []string{annotationRefName, annotationCtrName} {
		if md.Annotations[key] != "registry.k8s.io/pause:3.10" {
			t.Errorf("annotation %s = %q", key, md.Annotations[key])
		}
	}
	if md.MediaType != mediaTypeManifest || md.Platform == nil || md.Platform.Architecture != "amd64" || md.Platform.OS != "linux" {
		t.Errorf("manifest descriptor = %+v", md)
	}

	var man manifest
	if err := json.Unmarshal(blob(t, files, md), &man); err != nil {
		t.Fatal(err)
	}
	if man.SchemaVersion != 2 || man.Config.MediaType != mediaTypeConfig || len(man.Layers) != 1 || man.Layers[0].MediaType != mediaTypeLayer {
		t.Fatalf("manifest = %+v", man)
	}
	var cfg imageConfig
	if err := json.Unmarshal(blob(t, files, man.Config), &cfg); err != nil {
		t.Fatal(err)
	}
	layer := blob(t, files, man.Layers[0])
	if len(cfg.RootFS.DiffIDs) != 1 || cfg.RootFS.DiffIDs[0] != digestOf(layer) {
		t.Errorf("diff_ids = %v, want the uncompressed layer's digest %s", cfg.RootFS.DiffIDs, digestOf(layer))
	}
	if cfg.OS != "linux" || cfg.Architecture != "amd64" || cfg.Config.User != "65535:65535" ||
		strings.Join(cfg.Config.Entrypoint, " ") != "/pause" {
		t.Errorf("config = %+v", cfg)
	}

	layerFiles, layerHeaders, _ := readTar(t, layer)
	if string(layerFiles["pause"]) != "\x7fELF not really" {
		t.Errorf("layer's pause = %q", layerFiles["pause"])
	}
	if layerHeaders["pause"].Mode != 0o755 {
		t.Errorf("layer's pause mode = %o, want 755", layerHeaders["pause"].Mode)
	}
}

func TestWriteIsReproducible(t *testing.T) {
	var a, b bytes.Buffer
	if err := Write(&a, pauseImage()); err != nil {
		t.Fatal(err)
	}
	img := pauseImage()
	img.Files = append([]File{{Path: "/etc/x", Mode: 0o644, Content: []byte("x")}}, img.Files...)
	if err := Write(&b, img); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("different content gave the same archive")
	}
	// The same files in another order give the same bytes.
	img.Files[0], img.Files[1] = img.Files[1], img.Files[0]
	var c bytes.Buffer
	if err := Write(&c, img); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), c.Bytes()) {
		t.Fatal("the same image written twice differs")
	}
}

func TestLayerHasParentDirectories(t *testing.T) {
	layer, err := layerTar([]File{
		{Path: "/usr/bin/b", Mode: 0o755, Content: []byte("b")},
		{Path: "/usr/bin/a", Mode: 0o755, Content: []byte("a")},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, headers, order := readTar(t, layer)
	want := "usr/ usr/bin/ usr/bin/a usr/bin/b"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("layer entries = %s, want %s", got, want)
	}
	if headers["usr/bin/"].Typeflag != tar.TypeDir {
		t.Errorf("usr/bin/ is not a directory entry")
	}
	if !headers["usr/bin/a"].ModTime.Equal(epoch) {
		t.Errorf("mtime = %v, want the fixed epoch", headers["usr/bin/a"].ModTime)
	}
}

func TestWriteRejectsBadImages(t *testing.T) {
	cases := map[string]Image{
		"no name":       {Files: pauseImage().Files},
		"no files":      {Name: "x:1"},
		"relative path": {Name: "x:1", Files: []File{{Path: "pause", Mode: 0o755}}},
		"unclean path":  {Name: "x:1", Files: []File{{Path: "/a/../pause", Mode: 0o755}}},
		"duplicate":     {Name: "x:1", Files: []File{{Path: "/p", Mode: 0o755}, {Path: "/p", Mode: 0o644}}},
	}
	for name, img := range cases {
		if err := Write(io.Discard, img); err == nil {
			t.Errorf("%s: Write accepted it", name)
		} else if img.Name != "" && !strings.Contains(err.Error(), img.Name) {
			t.Errorf("%s: error %q does not name the image", name, err)
		}
	}
}

func TestConfigCarriesCmdEnvAndWorkingDir(t *testing.T) {
	img := pauseImage()
	img.Cmd = []string{"nginx", "-g", "daemon off;"}
	img.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	img.WorkingDir = "/usr/local/apache2"
	var buf bytes.Buffer
	if err := Write(&buf, img); err != nil {
		t.Fatal(err)
	}
	files, _, _ := readTar(t, buf.Bytes())
	var idx index
	var man manifest
	var cfg imageConfig
	if err := json.Unmarshal(files["index.json"], &idx); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(blob(t, files, idx.Manifests[0]), &man); err != nil {
		t.Fatal(err)
	}
	raw := blob(t, files, man.Config)
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	c := cfg.Config
	if strings.Join(c.Cmd, "|") != "nginx|-g|daemon off;" || len(c.Env) != 1 || c.Env[0] != img.Env[0] ||
		c.WorkingDir != "/usr/local/apache2" || strings.Join(c.Entrypoint, " ") != "/pause" {
		t.Errorf("config = %s", raw)
	}
	// Unset fields stay out, so the pause and CoreDNS archives keep their bytes.
	var plain bytes.Buffer
	if err := Write(&plain, pauseImage()); err != nil {
		t.Fatal(err)
	}
	files, _, _ = readTar(t, plain.Bytes())
	if err := json.Unmarshal(files["index.json"], &idx); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(blob(t, files, idx.Manifests[0]), &man); err != nil {
		t.Fatal(err)
	}
	if s := string(blob(t, files, man.Config)); strings.Contains(s, "Cmd") || strings.Contains(s, "Env") || strings.Contains(s, "WorkingDir") {
		t.Errorf("pause config names unset fields: %s", s)
	}
}

func TestLayerHasDirsSymlinksAndModes(t *testing.T) {
	layer, err := layerTar([]File{
		{Path: "/bin/sh", Type: Symlink, Link: "busybox"},
		{Path: "/bin/busybox", Mode: 0o755, Content: []byte("bb")},
		{Path: "/tmp", Type: Dir, Mode: 0o1777},
		{Path: "/usr/local/bin/nnp", Mode: 0o4755, Content: []byte("nnp")},
		{Path: "/var/empty", Type: Dir, Mode: 0o700},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, headers, order := readTar(t, layer)
	want := "bin/ bin/busybox bin/sh tmp/ usr/ usr/local/ usr/local/bin/ usr/local/bin/nnp var/ var/empty/"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("layer entries = %s, want %s", got, want)
	}
	if h := headers["bin/sh"]; h.Typeflag != tar.TypeSymlink || h.Linkname != "busybox" {
		t.Errorf("bin/sh = %+v, want a symlink to busybox", h)
	}
	if h := headers["tmp/"]; h.Typeflag != tar.TypeDir || h.Mode != 0o1777 {
		t.Errorf("tmp/ mode %o, want a sticky 1777 directory", h.Mode)
	}
	if h := headers["usr/local/bin/nnp"]; h.Mode != 0o4755 || h.Uid != 0 || h.Gid != 0 {
		t.Errorf("nnp mode %o owner %d:%d, want setuid 4755 owned by root", h.Mode, h.Uid, h.Gid)
	}
	if h := headers["var/empty/"]; h.Typeflag != tar.TypeDir || h.Mode != 0o700 {
		t.Errorf("var/empty/ = %+v", h)
	}
}

func TestLayerRejectsBadEntries(t *testing.T) {
	cases := map[string][]File{
		"symlink without target": {{Path: "/bin/sh", Type: Symlink}},
		"file below a symlink":   {{Path: "/lib64", Type: Symlink, Link: "lib"}, {Path: "/lib64/ld.so", Mode: 0o755}},
		"unknown type":           {{Path: "/x", Type: FileType(9)}},
	}
	for name, files := range cases {
		if _, err := layerTar(files); err == nil {
			t.Errorf("%s: layerTar accepted it", name)
		}
	}
}
