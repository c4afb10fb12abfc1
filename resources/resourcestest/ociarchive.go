package resourcestest

import (
	"archive/tar"
	"os"
	"testing"
)

// WriteOCIIndex writes, at path, a tar holding only index.json = index:
// all of an OCI image archive that code reading an image's name or
// manifest digest opens.
func WriteOCIIndex(t *testing.T, path, index string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := tar.NewWriter(f)
	if err := w.WriteHeader(&tar.Header{Name: "index.json", Mode: 0o644, Size: int64(len(index))}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(index)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
