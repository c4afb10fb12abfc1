package conformance

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources/resourcestest"
)

// TestWithImagesKeepsTheBundlesOwn: a test image named like one of the
// bundle's own (upstream's registry.k8s.io/etcd beside the bundle's
// static-pod etcd) is not added: the bundle's archive goes in its place,
// so containerd's import at start cannot swap the cluster's etcd for the
// tests'. Other test images are added as they are.
func TestWithImagesKeepsTheBundlesOwn(t *testing.T) {
	root := t.TempDir()
	bundle := filepath.Join(root, "bundle")
	lib := filepath.Join(bundle, "amd64", "var", "lib", "eggo")
	for _, d := range []string{"images", "etcd-image", "control-plane"} {
		if err := os.MkdirAll(filepath.Join(lib, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ourEtcd := filepath.Join(lib, "etcd-image", "etcd.tar")
	writeImageArchive(t, ourEtcd, "registry.k8s.io/etcd:3.5.15-0")
	writeImageArchive(t, filepath.Join(lib, "control-plane", "kube-apiserver.tar"), "registry.k8s.io/kube-apiserver:v1.31.4")
	images := filepath.Join(root, "images")
	if err := os.MkdirAll(images, 0o755); err != nil {
		t.Fatal(err)
	}
	writeImageArchive(t, filepath.Join(images, "etcd-3.5.15-0.tar"), "registry.k8s.io/etcd:3.5.15-0")
	writeImageArchive(t, filepath.Join(images, "agnhost-2.52.tar"), "registry.k8s.io/e2e-test-images/agnhost:2.52")

	results := filepath.Join(root, "results")
	if err := os.MkdirAll(results, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := WithImages(Options{Bundle: bundle, Images: images, Results: results, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := filepath.Glob(filepath.Join(dir, "amd64", "var", "lib", "eggo", "images", "*.tar"))
	names := map[string]string{}
	for _, a := range got {
		n, err := archiveImageName(a)
		if err != nil {
			t.Fatal(err)
		}
		if prev, ok := names[n]; ok {
			t.Errorf("two archives of %s: %s and %s", n, prev, a)
		}
		names[n] = a
	}
	if len(names) != 2 {
		t.Fatalf("images: %v, want etcd and agnhost", names)
	}
	// The workloads' images: only the Nodes that run the tests' pods
	// receive them.
	for n, a := range names {
		if !strings.HasPrefix(filepath.Base(a), "workload-") {
			t.Errorf("%s is in the bundle as %s, not as a workload image (workload-…)", n, filepath.Base(a))
		}
	}
	a, b := stat(t, names["registry.k8s.io/etcd:3.5.15-0"]), stat(t, ourEtcd)
	if !os.SameFile(a, b) {
		t.Errorf("the images directory's etcd is not the bundle's own archive")
	}
}

func stat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// writeImageArchive writes an OCI archive's index.json naming image (and
// nothing else: only the name is read here).
func writeImageArchive(t *testing.T, path, image string) {
	t.Helper()
	resourcestest.WriteOCIIndex(t, path, `{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:00","size":1,"annotations":{"io.containerd.image.name":"`+image+`"}}]}`)
}
