package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Registry serves image archives — tar files of OCI image layouts
// (oci-layout, index.json, blobs/sha256/…), as tools/bundle/ociimage
// writes them — read-only over the OCI distribution API. A cluster's
// containerd takes it as a registry's mirror (runtime.registry_mirrors):
// the tests that pull with imagePullPolicy Always need a registry, and an
// offline testbed has none.
//
// An image is served under its name without the registry host:
// registry.k8s.io/e2e-test-images/agnhost:2.66.1 as repository
// e2e-test-images/agnhost, tag 2.66.1 (docker.io/busybox as
// library/busybox); the mirror's host configuration maps the registry to
// this server. Manifests are held in memory; blobs are read from the
// archives where they lie, found by one pass over each archive's headers.
type Registry struct {
	repos map[string]*repository
	files []*os.File

	ln        net.Listener // nil until ServeRegistry listens
	srv       *http.Server
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// repository is one image name's tags, manifests and blobs.
type repository struct {
	tags      map[string]string // tag → manifest digest
	manifests map[string]manifestBlob
	blobs     map[string]blobAt
}

type manifestBlob struct {
	mediaType string
	data      []byte
}

// blobAt is where a blob lies: size bytes at offset of an archive.
type blobAt struct {
	file         *os.File
	offset, size int64
}

// Media types of the manifests that list others (a multi-platform image).
const (
	mediaTypeOCIIndex     = "application/vnd.oci.image.index.v1+json"
	mediaTypeDockerList   = "application/vnd.docker.distribution.manifest.list.v2+json"
	maxManifestSize       = 4 << 20 // what the distribution spec has registries accept
	registryAPIVersionKey = "Docker-Distribution-API-Version"
)

var (
	digestForm = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	// repoForm and tagForm are the distribution spec's <name> and <reference> (a tag).
	repoForm = regexp.MustCompile(`^[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*(/[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*)*$`)
	tagForm  = regexp.MustCompile(`^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$`)
)

// ServeRegistry serves archives on addr (host:port; port 0 picks one)
// until ctx ends or Close is called.
func ServeRegistry(ctx context.Context, addr string, archives []string) (*Registry, error) {
	r, err := NewRegistry(archives)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		r.closeFiles()
		return nil, fmt.Errorf("registry: %w", err)
	}
	r.ln, r.done = ln, make(chan struct{})
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 30 * time.Second}
	go r.srv.Serve(ln)
	go func() {
		select {
		case <-ctx.Done():
			r.Close()
		case <-r.done:
		}
	}()
	return r, nil
}

// NewRegistry indexes archives for serving (ServeHTTP) without listening.
// Two archives may give one repository different tags, not one tag
// different manifests.
func NewRegistry(archives []string) (*Registry, error) {
	r := &Registry{repos: map[string]*repository{}}
	for _, a := range archives {
		if err := r.add(a); err != nil {
			r.closeFiles()
			return nil, fmt.Errorf("registry: %s: %w", a, err)
		}
	}
	return r, nil
}

// Addr is the address ServeRegistry listens on ("" for NewRegistry's).
func (r *Registry) Addr() string {
	if r.ln == nil {
		return ""
	}
	return r.ln.Addr().String()
}

// Images are the images served, as repository:tag, sorted.
func (r *Registry) Images() []string {
	var out []string
	for name, repo := range r.repos {
		for tag := range repo.tags {
			out = append(out, name+":"+tag)
		}
	}
	slices.Sort(out)
	return out
}

// Close stops serving and closes the archives.
func (r *Registry) Close() error {
	r.closeOnce.Do(func() {
		if r.srv != nil {
			close(r.done)
			r.closeErr = r.srv.Close()
		}
		r.closeFiles()
	})
	return r.closeErr
}

func (r *Registry) closeFiles() {
	for _, f := range r.files {
		f.Close()
	}
	r.files = nil
}

// ServeHTTP answers the distribution API's reads: GET /v2/, and GET or
// HEAD of /v2/<name>/manifests/<tag or digest>, /v2/<name>/blobs/<digest>
// and /v2/<name>/tags/list. Any other method is refused (405): the
// registry is read-only.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	w.Header().Set(registryAPIVersionKey, "registry/2.0")
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeRegistryError(w, req, http.StatusMethodNotAllowed, "UNSUPPORTED", "the registry is read-only: GET and HEAD only")
		return
	}
	p := req.URL.Path
	if p == "/v2/" || p == "/v2" {
		w.Header().Set("Content-Type", "application/json")
		serveBytes(w, req, []byte("{}\n"))
		return
	}
	rest, ok := strings.CutPrefix(p, "/v2/")
	if !ok {
		writeRegistryError(w, req, http.StatusNotFound, "NAME_UNKNOWN", "not a distribution API path")
		return
	}
	if name, ok := strings.CutSuffix(rest, "/tags/list"); ok {
		r.serveTags(w, req, name)
		return
	}
	head, ref := path.Split(rest)
	if name, ok := strings.CutSuffix(head, "/manifests/"); ok && ref != "" {
		r.serveManifest(w, req, name, ref)
		return
	}
	if name, ok := strings.CutSuffix(head, "/blobs/"); ok && ref != "" {
		r.serveBlob(w, req, name, ref)
		return
	}
	writeRegistryError(w, req, http.StatusNotFound, "NAME_UNKNOWN", "not a distribution API path")
}

func (r *Registry) repo(w http.ResponseWriter, req *http.Request, name string) *repository {
	repo := r.repos[name]
	if repo == nil {
		writeRegistryError(w, req, http.StatusNotFound, "NAME_UNKNOWN", "repository name not known to registry")
	}
	return repo
}

func (r *Registry) serveManifest(w http.ResponseWriter, req *http.Request, name, ref string) {
	repo := r.repo(w, req, name)
	if repo == nil {
		return
	}
	digest := ref
	if !strings.Contains(ref, ":") {
		digest = repo.tags[ref]
	}
	m, ok := repo.manifests[digest]
	if !ok {
		writeRegistryError(w, req, http.StatusNotFound, "MANIFEST_UNKNOWN", "manifest unknown")
		return
	}
	w.Header().Set("Content-Type", m.mediaType)
	w.Header().Set("Docker-Content-Digest", digest)
	w.Header().Set("Etag", `"`+digest+`"`)
	serveBytes(w, req, m.data)
}

func (r *Registry) serveBlob(w http.ResponseWriter, req *http.Request, name, digest string) {
	repo := r.repo(w, req, name)
	if repo == nil {
		return
	}
	b, ok := repo.blobs[digest]
	if !ok {
		writeRegistryError(w, req, http.StatusNotFound, "BLOB_UNKNOWN", "blob unknown to registry")
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Docker-Content-Digest", digest)
	w.Header().Set("Etag", `"`+digest+`"`)
	http.ServeContent(w, req, "", time.Time{}, io.NewSectionReader(b.file, b.offset, b.size))
}

func (r *Registry) serveTags(w http.ResponseWriter, req *http.Request, name string) {
	repo := r.repo(w, req, name)
	if repo == nil {
		return
	}
	body, _ := json.Marshal(struct {
		Name string   `json:"name"`
		Tags []string `json:"tags"`
	}{name, slices.Sorted(maps.Keys(repo.tags))})
	w.Header().Set("Content-Type", "application/json")
	serveBytes(w, req, body)
}

// serveBytes answers GET with data and HEAD with its length alone.
func serveBytes(w http.ResponseWriter, req *http.Request, data []byte) {
	http.ServeContent(w, req, "", time.Time{}, bytes.NewReader(data))
}

// writeRegistryError answers with the distribution spec's error body
// (none for HEAD).
func writeRegistryError(w http.ResponseWriter, req *http.Request, status int, code, message string) {
	body, _ := json.Marshal(map[string]any{"errors": []map[string]string{{"code": code, "message": message}}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	if req.Method != http.MethodHead {
		w.Write(body)
	}
}
