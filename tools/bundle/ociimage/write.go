package ociimage

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"
)

// epoch is every entry's modification time: a fixed time keeps archives
// reproducible.
var epoch = time.Unix(0, 0).UTC()

// Write writes img to w as a tar archive of an OCI image layout.
func Write(w io.Writer, img Image) error {
	if img.Name == "" {
		return fmt.Errorf("ociimage: image has no name")
	}
	if len(img.Files) == 0 {
		return fmt.Errorf("ociimage: image %s has no files", img.Name)
	}
	osName, arch := img.OS, img.Arch
	if osName == "" {
		osName = "linux"
	}
	if arch == "" {
		arch = "amd64"
	}
	layer, err := layerTar(img.Files)
	if err != nil {
		return fmt.Errorf("ociimage: image %s: %w", img.Name, err)
	}
	layerDesc := blobDescriptor(mediaTypeLayer, layer)
	config, err := json.Marshal(imageConfig{
		Architecture: arch,
		OS:           osName,
		Config: runtimeConfig{User: img.User, Env: img.Env, Entrypoint: img.Entrypoint,
			Cmd: img.Cmd, WorkingDir: img.WorkingDir},
		RootFS: rootFS{Type: "layers", DiffIDs: []string{layerDesc.Digest}},
	})
	if err != nil {
		return err
	}
	configDesc := blobDescriptor(mediaTypeConfig, config)
	man, err := json.Marshal(manifest{
		SchemaVersion: 2,
		MediaType:     mediaTypeManifest,
		Config:        configDesc,
		Layers:        []descriptor{layerDesc},
	})
	if err != nil {
		return err
	}
	manDesc := blobDescriptor(mediaTypeManifest, man)
	manDesc.Annotations = map[string]string{annotationRefName: img.Name, annotationCtrName: img.Name}
	manDesc.Platform = &platform{Architecture: arch, OS: osName}
	idx, err := json.Marshal(index{SchemaVersion: 2, MediaType: mediaTypeIndex, Manifests: []descriptor{manDesc}})
	if err != nil {
		return err
	}
	layout, err := json.Marshal(ociLayout{ImageLayoutVersion: "1.0.0"})
	if err != nil {
		return err
	}

	tw := tar.NewWriter(w)
	entries := []struct {
		name string
		data []byte
	}{
		{"oci-layout", layout},
		{"index.json", idx},
		{blobPath(configDesc.Digest), config},
		{blobPath(layerDesc.Digest), layer},
		{blobPath(manDesc.Digest), man},
	}
	for _, dir := range []string{"blobs/", "blobs/sha256/"} {
		if err := tw.WriteHeader(dirHeader(dir)); err != nil {
			return err
		}
	}
	for _, e := range entries {
		if err := writeFile(tw, e.name, 0o644, e.data); err != nil {
			return fmt.Errorf("ociimage: image %s: %w", img.Name, err)
		}
	}
	return tw.Close()
}

// layerTar is the image's one layer: the files and the directories above them.
// Sorting by path puts a directory before everything below it, so a Dir entry
// is written before its contents and never twice.
func layerTar(files []File) ([]byte, error) {
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	links := map[string]bool{}
	for i, f := range sorted {
		if !path.IsAbs(f.Path) || path.Clean(f.Path) != f.Path || f.Path == "/" {
			return nil, fmt.Errorf("file path %q must be absolute and clean", f.Path)
		}
		if i > 0 && sorted[i-1].Path == f.Path {
			return nil, fmt.Errorf("file %s given twice", f.Path)
		}
		name := strings.TrimPrefix(f.Path, "/")
		for _, dir := range parents(name) {
			if links[dir] {
				// A runtime would unpack it through the link, outside the tree meant.
				return nil, fmt.Errorf("file %s is below the symlink /%s", f.Path, dir)
			}
			if !dirs[dir] {
				dirs[dir] = true
				if err := tw.WriteHeader(dirHeader(dir + "/")); err != nil {
					return nil, err
				}
			}
		}
		var err error
		switch f.Type {
		case Regular:
			err = writeFile(tw, name, f.Mode, f.Content)
		case Dir:
			dirs[name] = true
			hdr := dirHeader(name + "/")
			hdr.Mode = f.Mode
			err = tw.WriteHeader(hdr)
		case Symlink:
			if f.Link == "" {
				return nil, fmt.Errorf("symlink %s has no target", f.Path)
			}
			links[name] = true
			err = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: f.Link, Mode: 0o777, ModTime: epoch})
		default:
			return nil, fmt.Errorf("file %s: unknown type %d", f.Path, f.Type)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// parents lists the directories above name, outermost first ("a/b/c" → a, a/b).
func parents(name string) []string {
	var dirs []string
	for i, c := range name {
		if c == '/' {
			dirs = append(dirs, name[:i])
		}
	}
	return dirs
}

func dirHeader(name string) *tar.Header {
	return &tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: 0o755, ModTime: epoch}
}

func writeFile(tw *tar.Writer, name string, mode int64, data []byte) error {
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: epoch}
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	_, err := tw.Write(data)
	return err
}

func blobDescriptor(mediaType string, data []byte) descriptor {
	sum := sha256.Sum256(data)
	return descriptor{MediaType: mediaType, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(data))}
}

func blobPath(digest string) string {
	return "blobs/sha256/" + strings.TrimPrefix(digest, "sha256:")
}
