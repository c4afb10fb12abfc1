package conformance

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// bundleImages maps the image names of the bundle's own image archives
// (the control plane's and etcd's, under lib = .../var/lib/eggo) to their
// archives.
func bundleImages(lib string) (map[string]string, error) {
	out := map[string]string{}
	for _, sub := range []string{"control-plane", "etcd-image"} {
		archives, _ := filepath.Glob(filepath.Join(lib, sub, "*.tar"))
		for _, a := range archives {
			name, err := archiveImageName(a)
			if err != nil {
				return nil, err
			}
			out[name] = a
		}
	}
	return out, nil
}

// archiveImageName is the image name an OCI archive's index.json gives its
// first manifest (the name containerd imports it under).
func archiveImageName(archive string) (string, error) {
	f, err := os.Open(archive)
	if err != nil {
		return "", err
	}
	defer f.Close()
	r := tar.NewReader(f)
	for {
		h, err := r.Next()
		if errors.Is(err, io.EOF) {
			return "", fmt.Errorf("%s: no index.json: not an OCI archive", archive)
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", archive, err)
		}
		if h.Name != "index.json" && h.Name != "./index.json" {
			continue
		}
		var index struct {
			Manifests []struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"manifests"`
		}
		if err := json.NewDecoder(r).Decode(&index); err != nil {
			return "", fmt.Errorf("%s: index.json: %w", archive, err)
		}
		for _, m := range index.Manifests {
			for _, k := range []string{"io.containerd.image.name", "org.opencontainers.image.ref.name"} {
				if n := m.Annotations[k]; n != "" {
					return n, nil
				}
			}
		}
		return "", fmt.Errorf("%s: index.json names no image", archive)
	}
}
