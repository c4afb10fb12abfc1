package conformance

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"strings"
)

// How Registry reads image archives: each archive's tar headers once
// (index.json, and the offset and size of each blob), then the manifests
// its index.json names, digests checked, into memory.

// add indexes one archive: its blobs' places, then the images its
// index.json names.
func (r *Registry) add(archive string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	r.files = append(r.files, f)
	index, blobs, err := indexArchive(f)
	if err != nil {
		return err
	}
	var idx struct {
		Manifests []descriptor `json:"manifests"`
	}
	if err := json.Unmarshal(index, &idx); err != nil {
		return fmt.Errorf("index.json: %w", err)
	}
	named := 0
	for _, d := range idx.Manifests {
		image := d.Annotations["io.containerd.image.name"]
		if ref := d.Annotations["org.opencontainers.image.ref.name"]; image == "" && strings.Contains(ref, "/") {
			image = ref // a full name; a bare tag names no repository
		}
		if image == "" {
			continue
		}
		if err := r.addImage(image, d, blobs); err != nil {
			return err
		}
		named++
	}
	if named == 0 {
		return errors.New("index.json names no image (annotation io.containerd.image.name or org.opencontainers.image.ref.name)")
	}
	return nil
}

// indexArchive reads an archive's headers once: its index.json, and where
// each blob lies.
func indexArchive(f *os.File) ([]byte, map[string]blobAt, error) {
	blobs := map[string]blobAt{}
	var index []byte
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if h.Typeflag != tar.TypeReg {
			continue
		}
		switch {
		case name == "index.json":
			if index, err = readAtMost(tr, maxManifestSize); err != nil {
				return nil, nil, fmt.Errorf("index.json: %w", err)
			}
		case strings.HasPrefix(name, "blobs/sha256/"):
			if isSparse(h) {
				return nil, nil, fmt.Errorf("%s is a sparse file", h.Name)
			}
			// The tar reader has read this entry's header and nothing of
			// its data: the file's offset is where the blob starts.
			off, err := f.Seek(0, io.SeekCurrent)
			if err != nil {
				return nil, nil, err
			}
			blobs["sha256:"+path.Base(name)] = blobAt{file: f, offset: off, size: h.Size}
		}
	}
	if index == nil {
		return nil, nil, errors.New("no index.json: not an OCI image layout")
	}
	return index, blobs, nil
}

// addImage serves image (a full name) as manifest d of an archive whose
// blobs are blobs.
func (r *Registry) addImage(image string, d descriptor, blobs map[string]blobAt) error {
	repoName, tag, err := splitImageName(image)
	if err != nil {
		return err
	}
	repo := r.repos[repoName]
	if repo == nil {
		repo = &repository{tags: map[string]string{}, manifests: map[string]manifestBlob{}, blobs: map[string]blobAt{}}
		r.repos[repoName] = repo
	}
	maps.Copy(repo.blobs, blobs)
	if err := repo.addManifest(d, 0); err != nil {
		return fmt.Errorf("%s: %w", image, err)
	}
	if tag != "" {
		if prev, ok := repo.tags[tag]; ok && prev != d.Digest {
			return fmt.Errorf("%s: another archive gives it manifest %s, this one %s", image, prev, d.Digest)
		}
		repo.tags[tag] = d.Digest
	}
	return nil
}

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations"`
}

// addManifest reads manifest d from the repository's blobs, checking its
// digest, and the manifests it lists when it is an index.
func (repo *repository) addManifest(d descriptor, depth int) error {
	if !digestForm.MatchString(d.Digest) {
		return fmt.Errorf("manifest digest %q is not sha256:<64 hex digits>", d.Digest)
	}
	if _, ok := repo.manifests[d.Digest]; ok {
		return nil
	}
	b, ok := repo.blobs[d.Digest]
	if !ok {
		return fmt.Errorf("manifest %s is not in the archive", d.Digest)
	}
	if b.size > maxManifestSize {
		return fmt.Errorf("manifest %s is %d bytes, more than %d", d.Digest, b.size, maxManifestSize)
	}
	data := make([]byte, b.size)
	if _, err := b.file.ReadAt(data, b.offset); err != nil {
		return fmt.Errorf("manifest %s: %w", d.Digest, err)
	}
	if sum := sha256.Sum256(data); "sha256:"+hex.EncodeToString(sum[:]) != d.Digest {
		return fmt.Errorf("manifest %s: its content's digest is sha256:%x", d.Digest, sum)
	}
	var body struct {
		MediaType string       `json:"mediaType"`
		Manifests []descriptor `json:"manifests"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		return fmt.Errorf("manifest %s: %w", d.Digest, err)
	}
	mediaType := d.MediaType
	if mediaType == "" {
		mediaType = body.MediaType
	}
	if mediaType == "" {
		return fmt.Errorf("manifest %s has no media type", d.Digest)
	}
	repo.manifests[d.Digest] = manifestBlob{mediaType: mediaType, data: data}
	if (mediaType == mediaTypeOCIIndex || mediaType == mediaTypeDockerList) && depth < 2 {
		for _, child := range body.Manifests {
			if _, ok := repo.blobs[child.Digest]; !ok {
				continue // a platform the archive does not hold
			}
			if err := repo.addManifest(child, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// splitImageName is the repository and tag an image name is served
// under: the registry host dropped (docker.io's one-part names under
// library/), a digest dropped (the tag is "" when there is none).
func splitImageName(image string) (repo, tag string, err error) {
	name, _, _ := strings.Cut(image, "@")
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		name, tag = name[:i], name[i+1:]
	}
	host, rest, hasHost := strings.Cut(name, "/")
	if hasHost && (strings.ContainsAny(host, ".:") || host == "localhost") {
		name = rest
	} else {
		host = "docker.io"
	}
	if (host == "docker.io" || host == "index.docker.io") && !strings.Contains(name, "/") {
		name = "library/" + name
	}
	if !repoForm.MatchString(name) {
		return "", "", fmt.Errorf("image %q: %q is not a repository name", image, name)
	}
	if tag != "" && !tagForm.MatchString(tag) {
		return "", "", fmt.Errorf("image %q: %q is not a tag", image, tag)
	}
	return name, tag, nil
}

func readAtMost(r io.Reader, n int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, n+1))
	if err == nil && int64(len(data)) > n {
		err = fmt.Errorf("more than %d bytes", n)
	}
	return data, err
}

// isSparse reports a sparse entry, whose data does not lie in one piece.
func isSparse(h *tar.Header) bool {
	if h.Typeflag == tar.TypeGNUSparse {
		return true
	}
	for k := range h.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}
