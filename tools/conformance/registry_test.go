package conformance

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ociBlob is a blob of a test archive and its descriptor.
type ociBlob struct {
	mediaType string
	data      []byte
	name      string // its digest in the archive, when not its own (a forged blob)
}

func (b ociBlob) digest() string {
	sum := sha256.Sum256(b.data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func (b ociBlob) descriptor(extra string) string {
	return fmt.Sprintf(`{"mediaType":%q,"digest":%q,"size":%d%s}`, b.mediaType, b.digest(), len(b.data), extra)
}

// testImage is an image as tools/bundle/ociimage.Write lays it out (a
// module of its own, which this one cannot import): one layer, its
// config, its manifest, and index.json naming it in both annotations.
type testImage struct {
	config, layer, manifest ociBlob
}

func newTestImage(t *testing.T, layerSize int) testImage {
	t.Helper()
	content := make([]byte, layerSize)
	rand.Read(content)
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "agnhost", Mode: 0o755, Size: int64(len(content))})
	tw.Write(content)
	tw.Close()
	img := testImage{layer: ociBlob{mediaType: "application/vnd.oci.image.layer.v1.tar", data: layer.Bytes()}}
	img.config = ociBlob{mediaType: "application/vnd.oci.image.config.v1+json", data: []byte(`{"architecture":"amd64","os":"linux","config":{},"rootfs":{"type":"layers","diff_ids":["` + img.layer.digest() + `"]}}`)}
	img.manifest = ociBlob{mediaType: "application/vnd.oci.image.manifest.v1+json", data: []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":` + img.config.descriptor("") +
		`,"layers":[` + img.layer.descriptor("") + `]}`)}
	return img
}

// writeOCIArchive writes an OCI layout tar: index.json, then blobs (each
// entry's name prefixed as given: "" or "./"), after an entry whose long
// name takes extended headers (the blobs' offsets must account for them).
func writeOCIArchive(t *testing.T, file, prefix, index string, blobs ...ociBlob) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(name string, data []byte) {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: prefix + name, Mode: 0o644, Size: int64(len(data))}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	for _, dir := range []string{"blobs/", "blobs/sha256/"} {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: prefix + dir, Mode: 0o755})
	}
	add("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`))
	add("index.json", []byte(index))
	add("notes/"+strings.Repeat("long-", 40)+"name", []byte("not a blob"))
	for _, b := range blobs {
		name := b.name
		if name == "" {
			name = b.digest()
		}
		add("blobs/sha256/"+strings.TrimPrefix(name, "sha256:"), b.data)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// agnhostArchive is registry.k8s.io/e2e-test-images/agnhost:2.66.1 as
// ociimage.Write names it.
func agnhostArchive(t *testing.T, dir string, img testImage) string {
	t.Helper()
	a := filepath.Join(dir, "agnhost.tar")
	const name = "registry.k8s.io/e2e-test-images/agnhost:2.66.1"
	writeOCIArchive(t, a, "", `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[`+
		img.manifest.descriptor(`,"annotations":{"io.containerd.image.name":"`+name+`","org.opencontainers.image.ref.name":"`+name+`"},"platform":{"architecture":"amd64","os":"linux"}`)+`]}`,
		img.config, img.layer, img.manifest)
	return a
}

// fetch makes one request of the registry.
func fetch(t *testing.T, h http.Handler, method, target string) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec.Result()
}

func body(t *testing.T, r *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sha256Of(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestRegistryServesAnArchive: an image archive is served as the
// distribution API reads it — the manifest by tag and by digest with its
// media type and digest, each blob as the archive holds it — and HEAD
// answers the same headers without a body.
func TestRegistryServesAnArchive(t *testing.T) {
	img := newTestImage(t, 3<<20)
	reg, err := NewRegistry([]string{agnhostArchive(t, t.TempDir(), img)})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	if got := strings.Join(reg.Images(), " "); got != "e2e-test-images/agnhost:2.66.1" {
		t.Errorf("images served: %s", got)
	}

	r := fetch(t, reg, "GET", "/v2/")
	if r.StatusCode != 200 || r.Header.Get("Docker-Distribution-API-Version") != "registry/2.0" {
		t.Errorf("GET /v2/: %s, API version %q", r.Status, r.Header.Get("Docker-Distribution-API-Version"))
	}

	const repo = "/v2/e2e-test-images/agnhost"
	for _, ref := range []string{"2.66.1", img.manifest.digest(), "2.66.1?ns=registry.k8s.io"} {
		r := fetch(t, reg, "GET", repo+"/manifests/"+ref)
		b := body(t, r)
		if r.StatusCode != 200 || !bytes.Equal(b, img.manifest.data) {
			t.Fatalf("GET manifest %s: %s\n%s", ref, r.Status, b)
		}
		if d := r.Header.Get("Docker-Content-Digest"); d != sha256Of(b) || d != img.manifest.digest() {
			t.Errorf("manifest %s: Docker-Content-Digest %s, its body's %s", ref, d, sha256Of(b))
		}
		if ct, cl := r.Header.Get("Content-Type"), r.Header.Get("Content-Length"); ct != img.manifest.mediaType || cl != fmt.Sprint(len(b)) {
			t.Errorf("manifest %s: Content-Type %q, Content-Length %q", ref, ct, cl)
		}
		h := fetch(t, reg, "HEAD", repo+"/manifests/"+ref)
		if hb := body(t, h); h.StatusCode != 200 || len(hb) != 0 || h.Header.Get("Docker-Content-Digest") != img.manifest.digest() ||
			h.Header.Get("Content-Length") != fmt.Sprint(len(b)) || h.Header.Get("Content-Type") != img.manifest.mediaType {
			t.Errorf("HEAD manifest %s: %s, %d bytes of body, headers %v", ref, h.Status, len(hb), h.Header)
		}
	}
	for _, blob := range []ociBlob{img.config, img.layer} {
		r := fetch(t, reg, "GET", repo+"/blobs/"+blob.digest())
		if b := body(t, r); r.StatusCode != 200 || sha256Of(b) != blob.digest() || r.Header.Get("Docker-Content-Digest") != blob.digest() {
			t.Errorf("GET blob %s: %s, %d bytes of digest %s", blob.digest(), r.Status, len(b), sha256Of(b))
		}
		h := fetch(t, reg, "HEAD", repo+"/blobs/"+blob.digest())
		if hb := body(t, h); h.StatusCode != 200 || len(hb) != 0 || h.Header.Get("Content-Length") != fmt.Sprint(len(blob.data)) {
			t.Errorf("HEAD blob %s: %s, %d bytes of body, Content-Length %q", blob.digest(), h.Status, len(hb), h.Header.Get("Content-Length"))
		}
	}
	r = fetch(t, reg, "GET", repo+"/tags/list")
	if b := body(t, r); r.StatusCode != 200 || string(b) != `{"name":"e2e-test-images/agnhost","tags":["2.66.1"]}` {
		t.Errorf("tags/list: %s %s", r.Status, b)
	}
}

// TestRegistryRefuses: what it does not have is 404 with the spec's JSON
// error (no body for HEAD), anything but GET and HEAD 405.
func TestRegistryRefuses(t *testing.T) {
	img := newTestImage(t, 10)
	reg, err := NewRegistry([]string{agnhostArchive(t, t.TempDir(), img)})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	const repo = "/v2/e2e-test-images/agnhost"
	unknown := "sha256:" + strings.Repeat("0", 64)
	for _, tc := range []struct{ method, target, code string }{
		{"GET", "/v2/e2e-test-images/kitten/manifests/1.8", "NAME_UNKNOWN"},
		{"GET", repo + "/manifests/2.66.2", "MANIFEST_UNKNOWN"},
		{"GET", repo + "/manifests/" + unknown, "MANIFEST_UNKNOWN"},
		{"GET", repo + "/manifests/" + img.layer.digest(), "MANIFEST_UNKNOWN"},
		{"GET", repo + "/blobs/" + unknown, "BLOB_UNKNOWN"},
		{"GET", "/v2/_catalog", "NAME_UNKNOWN"},
		{"HEAD", repo + "/manifests/2.66.2", ""},
		{"HEAD", repo + "/blobs/" + unknown, ""},
	} {
		r := fetch(t, reg, tc.method, tc.target)
		b := body(t, r)
		if r.StatusCode != 404 {
			t.Errorf("%s %s: %s, want 404", tc.method, tc.target, r.Status)
			continue
		}
		if tc.code == "" {
			if len(b) != 0 {
				t.Errorf("%s %s: a body: %s", tc.method, tc.target, b)
			}
			continue
		}
		var e struct {
			Errors []struct{ Code, Message string } `json:"errors"`
		}
		if err := json.Unmarshal(b, &e); err != nil || len(e.Errors) != 1 || e.Errors[0].Code != tc.code || e.Errors[0].Message == "" ||
			r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: %s, want the error %s", tc.method, tc.target, b, tc.code)
		}
	}
	for _, method := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		for _, target := range []string{repo + "/blobs/uploads/", repo + "/manifests/2.66.1", "/v2/"} {
			r := fetch(t, reg, method, target)
			if b := body(t, r); r.StatusCode != 405 || r.Header.Get("Allow") != "GET, HEAD" || !strings.Contains(string(b), `"UNSUPPORTED"`) {
				t.Errorf("%s %s: %s %v %s, want 405", method, target, r.Status, r.Header, b)
			}
		}
	}
}

// TestRegistryIndexAndNames: a multi-platform image (an index listing
// its platforms' manifests) is served by tag as the index, each platform's
// manifest by digest; entries named "./…" are read as the others; a
// docker.io name of one part is library/NAME.
func TestRegistryIndexAndNames(t *testing.T) {
	img := newTestImage(t, 100)
	list := ociBlob{mediaType: "application/vnd.oci.image.index.v1+json", data: []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[` +
		img.manifest.descriptor(`,"platform":{"architecture":"amd64","os":"linux"}`) + `,` +
		`{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:` + strings.Repeat("1", 64) + `","size":1,"platform":{"architecture":"arm64","os":"linux"}}]}`)}
	a := filepath.Join(t.TempDir(), "busybox.tar")
	writeOCIArchive(t, a, "./", `{"schemaVersion":2,"manifests":[`+list.descriptor(`,"annotations":{"io.containerd.image.name":"docker.io/library/busybox:1.36","org.opencontainers.image.ref.name":"1.36"}`)+`]}`,
		img.config, img.layer, img.manifest, list)
	reg, err := NewRegistry([]string{a})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	r := fetch(t, reg, "GET", "/v2/library/busybox/manifests/1.36")
	if b := body(t, r); r.StatusCode != 200 || r.Header.Get("Content-Type") != list.mediaType || !bytes.Equal(b, list.data) {
		t.Errorf("the index by tag: %s %s", r.Status, r.Header.Get("Content-Type"))
	}
	r = fetch(t, reg, "GET", "/v2/library/busybox/manifests/"+img.manifest.digest())
	if b := body(t, r); r.StatusCode != 200 || r.Header.Get("Content-Type") != img.manifest.mediaType || !bytes.Equal(b, img.manifest.data) {
		t.Errorf("a platform's manifest by digest: %s %s", r.Status, r.Header.Get("Content-Type"))
	}

	for image, want := range map[string]string{
		"registry.k8s.io/e2e-test-images/agnhost:2.66.1": "e2e-test-images/agnhost 2.66.1",
		"registry.k8s.io/pause:3.10.2":                   "pause 3.10.2",
		"localhost:5000/a/b:c":                           "a/b c",
		"busybox:1.36":                                   "library/busybox 1.36",
		"docker.io/busybox":                              "library/busybox ",
		"quay.io/x/y@sha256:" + strings.Repeat("a", 64):  "x/y ",
	} {
		repo, tag, err := splitImageName(image)
		if got := repo + " " + tag; err != nil || got != want {
			t.Errorf("splitImageName(%q) = %q, %v; want %q", image, got, err, want)
		}
	}
	if _, _, err := splitImageName("registry.k8s.io/Bad/Name:1"); err == nil {
		t.Error("an upper-case repository name was taken")
	}
}

// TestRegistryRefusesBadArchives: a manifest missing from its archive or
// whose content is not its digest, one tag given two manifests, and an
// archive that is not an OCI layout stop the registry before it serves.
func TestRegistryRefusesBadArchives(t *testing.T) {
	dir := t.TempDir()
	img, other := newTestImage(t, 10), newTestImage(t, 10)
	named := func(b ociBlob) string {
		return `{"schemaVersion":2,"manifests":[` + b.descriptor(`,"annotations":{"io.containerd.image.name":"registry.k8s.io/x:1"}`) + `]}`
	}
	missing := filepath.Join(dir, "missing-manifest.tar")
	writeOCIArchive(t, missing, "", named(img.manifest), img.config, img.layer)
	forged := filepath.Join(dir, "forged.tar")
	writeOCIArchive(t, forged, "", named(img.manifest), img.config, img.layer,
		ociBlob{img.manifest.mediaType, append(bytes.Clone(img.manifest.data), ' '), img.manifest.digest()})
	first, second := filepath.Join(dir, "first.tar"), filepath.Join(dir, "second.tar")
	writeOCIArchive(t, first, "", named(img.manifest), img.config, img.layer, img.manifest)
	writeOCIArchive(t, second, "", named(other.manifest), other.config, other.layer, other.manifest)
	notOCI := filepath.Join(dir, "not-oci.tar")
	writeOCIArchive(t, notOCI, "", `{"schemaVersion":2,"manifests":[]}`)
	for _, tc := range []struct {
		archives []string
		want     string
	}{
		{[]string{missing}, "is not in the archive"},
		{[]string{forged}, "its content's digest is"},
		{[]string{first, second}, "another archive gives it manifest"},
		{[]string{notOCI}, "names no image"},
		{[]string{filepath.Join(dir, "none.tar")}, "no such file"},
	} {
		if _, err := NewRegistry(tc.archives); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error saying %q", tc.archives, err, tc.want)
		}
	}
	if _, err := NewRegistry([]string{first, first}); err != nil {
		t.Errorf("one archive twice: %v", err)
	}
}

// TestServeRegistry: served on a port of its own until its context ends.
func TestServeRegistry(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg, err := ServeRegistry(ctx, "127.0.0.1:0", []string{agnhostArchive(t, t.TempDir(), newTestImage(t, 10))})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	r, err := http.Get("http://" + reg.Addr() + "/v2/e2e-test-images/agnhost/tags/list")
	if err != nil {
		t.Fatal(err)
	}
	if b := body(t, r); r.StatusCode != 200 || !strings.Contains(string(b), `"2.66.1"`) {
		t.Errorf("tags/list over the network: %s %s", r.Status, b)
	}
	r.Body.Close()
	cancel()
	if err := reg.Close(); err != nil {
		t.Errorf("Close after the context ended: %v", err)
	}
	if _, err := http.Get("http://" + reg.Addr() + "/v2/"); err == nil {
		t.Error("still serving after Close")
	}
}
