// Package scripts holds the bundle's shell scripts; these tests run them on
// small fake parts, so the layout, MANIFEST and caching rules are checked in
// seconds without building Kubernetes.
package scripts

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const (
	stamp = ".eggo-bundle-stamp"
	from  = ".eggo-bundle-from"
)

// makePart writes a part: files (path → content, all executable), a line
// for each in the part's from file ("PATH fake/PATH@KEY"), and a stamp.
func makePart(t *testing.T, dir, key string, files map[string]string) string {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(filepath.Join(dir, from), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "%s fake/%s@%s\n", p, filepath.Base(p), key)
		f.Close()
	}
	if key != "" {
		if err := os.WriteFile(filepath.Join(dir, stamp), []byte(key+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func fakeParts(t *testing.T) (debs, image, flannel, kube string) {
	root := t.TempDir()
	bins := map[string]string{}
	for _, b := range []string{"etcd", "etcdctl", "containerd", "containerd-shim-runc-v2", "ctr", "runc"} {
		bins["usr/local/bin/"+b] = "debian " + b
	}
	bins["opt/cni/bin/bridge"] = "bridge"
	bins["opt/cni/bin/host-local"] = "host-local"
	debs = makePart(t, filepath.Join(root, "debs"), "debs k1", bins)
	// The pause, CoreDNS and control-plane images are parts of their own in
	// build.sh; one fake part holding all exercises the same union.
	image = makePart(t, filepath.Join(root, "image"), "image k1", map[string]string{
		"var/lib/eggo/images/pause.tar":                          "tar",
		"var/lib/eggo/images/coredns.tar":                        "coredns tar",
		"var/lib/eggo/control-plane/kube-apiserver.tar":          "apiserver tar",
		"var/lib/eggo/control-plane/kube-controller-manager.tar": "controller-manager tar",
		"var/lib/eggo/control-plane/kube-scheduler.tar":          "scheduler tar",
		"var/lib/eggo/etcd-image/etcd.tar":                       "etcd tar",
	})
	flannel = makePart(t, filepath.Join(root, "flannel"), "flannel v0.28.10 k1", map[string]string{
		"usr/local/bin/flanneld": "flanneld v0.28.10",
		"opt/cni/bin/flannel":    "cni flannel v0.9.1",
	})
	kb := map[string]string{}
	for _, b := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "kube-proxy", "kubectl"} {
		kb["usr/local/bin/"+b] = "v1.31.4 " + b
	}
	kube = makePart(t, filepath.Join(root, "kube"), "kube v1.31.4 k1", kb)
	return debs, image, flannel, kube
}

func assemble(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command("./assemble.sh", args...).CombinedOutput()
	return string(out), err
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestAssembleMirrorsTheHostRootAndWritesAManifest(t *testing.T) {
	debs, image, flannel, kube := fakeParts(t)
	out := filepath.Join(t.TempDir(), "v1.31.4")
	if log, err := assemble(t, out, "v1.31.4", debs, image, flannel, kube); err != nil {
		t.Fatalf("assemble: %v\n%s", err, log)
	}
	for p, want := range map[string]string{
		"amd64/usr/local/bin/kubelet":                 "v1.31.4 kubelet",
		"amd64/usr/local/bin/etcd":                    "debian etcd",
		"amd64/opt/cni/bin/bridge":                    "bridge",
		"amd64/var/lib/eggo/images/pause.tar":         "tar",
		"amd64/var/lib/eggo/images/coredns.tar":       "coredns tar",
		"amd64/usr/local/bin/containerd-shim-runc-v2": "debian containerd-shim-runc-v2",
		"amd64/usr/local/bin/flanneld":                "flanneld v0.28.10",
		"amd64/opt/cni/bin/flannel":                   "cni flannel v0.9.1",
	} {
		got, err := os.ReadFile(filepath.Join(out, p))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", p, got, err, want)
		}
	}
	if st, err := os.Stat(filepath.Join(out, "amd64/usr/local/bin/kubelet")); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("kubelet mode: %v %v, want 0755", st, err)
	}
	for _, f := range []string{stamp, from} {
		if _, err := os.Stat(filepath.Join(out, "amd64", f)); err == nil {
			t.Errorf("a part's %s leaked into amd64/, where eggo would install it", f)
		}
	}

	manifest, err := os.ReadFile(filepath.Join(out, "MANIFEST"))
	if err != nil {
		t.Fatal(err)
	}
	m := string(manifest)
	if !strings.Contains(m, "# version: v1.31.4\n") || !strings.Contains(m, "# arch: amd64\n") {
		t.Errorf("MANIFEST lacks version or arch:\n%s", m)
	}
	for _, want := range []string{
		sha("v1.31.4 kube-apiserver") + "  amd64/usr/local/bin/kube-apiserver\n",
		sha("flanneld v0.28.10") + "  amd64/usr/local/bin/flanneld\n",
		sha("cni flannel v0.9.1") + "  amd64/opt/cni/bin/flannel\n",
		"# part: flannel v0.28.10 k1\n",
		// Each file's source, on the line before its sha256.
		"# from: amd64/usr/local/bin/flanneld fake/flanneld@flannel v0.28.10 k1\n" + sha("flanneld v0.28.10") + "  amd64/usr/local/bin/flanneld\n",
		"# from: amd64/usr/local/bin/etcd fake/etcd@debs k1\n",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("MANIFEST lacks %q:\n%s", want, m)
		}
	}
	files, froms := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(m), "\n") {
		if !strings.HasPrefix(line, "#") {
			files++
		}
		if strings.HasPrefix(line, "# from: ") {
			froms++
		}
	}
	if froms != files {
		t.Errorf("MANIFEST has %d from lines for %d files, want one each", froms, files)
	}
	if files != 22 {
		t.Errorf("MANIFEST lists %d files, want 22 (6 kube, 6 debian, bridge, host-local, pause.tar, coredns.tar, 3 control-plane images, the etcd image, flanneld, flannel)", files)
	}
	check := exec.Command("bash", "-c", "grep -v '^#' MANIFEST | sha256sum -c --quiet")
	check.Dir = out
	if log, err := check.CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c of the MANIFEST as the README says: %v\n%s", err, log)
	}
}

func TestAssembleIsSkippedUntilAPartChanges(t *testing.T) {
	debs, image, flannel, kube := fakeParts(t)
	out := filepath.Join(t.TempDir(), "v1.31.4")
	if log, err := assemble(t, out, "v1.31.4", debs, image, flannel, kube); err != nil {
		t.Fatalf("assemble: %v\n%s", err, log)
	}
	log, err := assemble(t, out, "v1.31.4", debs, image, flannel, kube)
	if err != nil || !strings.Contains(log, "cached") {
		t.Fatalf("second assemble with the same parts: %v, %q; want it skipped as cached", err, log)
	}
	// A part rebuilt from other inputs has a new stamp: the bundle follows.
	makePart(t, kube, "kube v1.31.4 k2", map[string]string{"usr/local/bin/kubelet": "rebuilt kubelet"})
	if log, err := assemble(t, out, "v1.31.4", debs, image, flannel, kube); err != nil || strings.Contains(log, "cached") {
		t.Fatalf("assemble after a part changed: %v, %q; want a rebuild", err, log)
	}
	got, _ := os.ReadFile(filepath.Join(out, "amd64/usr/local/bin/kubelet"))
	manifest, _ := os.ReadFile(filepath.Join(out, "MANIFEST"))
	if string(got) != "rebuilt kubelet" || !strings.Contains(string(manifest), sha("rebuilt kubelet")) {
		t.Errorf("after rebuild kubelet = %q, MANIFEST:\n%s", got, manifest)
	}
	if _, err := os.Stat(out + ".tmp"); err == nil {
		t.Errorf("%s.tmp left behind", out)
	}
}

func TestAssembleRefusesIncompleteParts(t *testing.T) {
	debs, image, flannel, kube := fakeParts(t)
	out := filepath.Join(t.TempDir(), "v1.31.4")

	os.Remove(filepath.Join(image, stamp)) // as if its build was interrupted
	log, err := assemble(t, out, "v1.31.4", debs, image, flannel, kube)
	if err == nil || !strings.Contains(log, image) {
		t.Errorf("assemble with an unstamped part: %v, %q; want an error naming %s", err, log, image)
	}
	makePart(t, image, "image k1", nil)

	os.Remove(filepath.Join(kube, "usr/local/bin/kube-proxy"))
	log, err = assemble(t, out, "v1.31.4", debs, image, flannel, kube)
	if err == nil || !strings.Contains(log, "/usr/local/bin/kube-proxy") {
		t.Errorf("assemble without kube-proxy: %v, %q; want an error naming it", err, log)
	}
	makePart(t, kube, "kube v1.31.4 k1", map[string]string{"usr/local/bin/kube-proxy": "v1.31.4 kube-proxy"})

	// The coredns add-on runs the bundle's image: a bundle without it is refused.
	os.Remove(filepath.Join(image, "var/lib/eggo/images/coredns.tar"))
	log, err = assemble(t, out, "v1.31.4", debs, image, flannel, kube)
	if err == nil || !strings.Contains(log, "no coredns image") {
		t.Errorf("assemble without coredns.tar: %v, %q; want an error naming the coredns image", err, log)
	}
	makePart(t, image, "image k1", map[string]string{"var/lib/eggo/images/coredns.tar": "coredns tar"})

	// The pod network needs flanneld and the CNI plugin it writes the config for.
	for _, p := range []string{"usr/local/bin/flanneld", "opt/cni/bin/flannel"} {
		full := filepath.Join(flannel, p)
		content, _ := os.ReadFile(full)
		os.Remove(full)
		log, err = assemble(t, out, "v1.31.4", debs, image, flannel, kube)
		if err == nil || !strings.Contains(log, "has no /"+p) {
			t.Errorf("assemble without %s: %v, %q; want an error naming it", p, err, log)
		}
		os.WriteFile(full, content, 0o755)
	}
	if _, err := os.Stat(filepath.Join(out, "MANIFEST")); err == nil {
		t.Errorf("a failed assemble left a bundle at %s", out)
	}
}

// Should Debian's containernetworking-plugins ever ship a flannel plugin, the
// bundle must not pick one of the two silently.
func TestAssembleRefusesAFileFromTwoParts(t *testing.T) {
	debs, image, flannel, kube := fakeParts(t)
	makePart(t, debs, "debs k2", map[string]string{"opt/cni/bin/flannel": "debian flannel"})
	out := filepath.Join(t.TempDir(), "v1.31.4")
	log, err := assemble(t, out, "v1.31.4", debs, image, flannel, kube)
	if err == nil || !strings.Contains(log, "opt/cni/bin/flannel comes from two parts") {
		t.Errorf("assemble with two CNI flannel plugins: %v, %q; want an error naming it", err, log)
	}
	if _, err := os.Stat(filepath.Join(out, "MANIFEST")); err == nil {
		t.Errorf("a failed assemble left a bundle at %s", out)
	}
}

// Every file must say where it comes from: a part that does not say it for
// one of its files fails the bundle.
func TestAssembleRefusesAFileOfUnknownSource(t *testing.T) {
	debs, image, flannel, kube := fakeParts(t)
	lines, err := os.ReadFile(filepath.Join(flannel, from))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
		if !strings.HasPrefix(l, "opt/cni/bin/flannel ") {
			kept = append(kept, l)
		}
	}
	if err := os.WriteFile(filepath.Join(flannel, from), []byte(strings.Join(kept, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "v1.31.4")
	log, err := assemble(t, out, "v1.31.4", debs, image, flannel, kube)
	if err == nil || !strings.Contains(log, "does not say where opt/cni/bin/flannel comes from") {
		t.Errorf("assemble with a file of no source: %v, %q; want an error naming it", err, log)
	}
	if _, err := os.Stat(filepath.Join(out, "MANIFEST")); err == nil {
		t.Errorf("a failed assemble left a bundle at %s", out)
	}
}
