package certs

import (
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

const testKubectl = "/var/cache/eggo/bundle/v1.36.5/amd64/usr/local/bin/kubectl"

func TestKubeconfigWrittenAndReadByKubectl(t *testing.T) {
	w := newPKIWorld(t)
	c := pkiCluster()
	changes := w.apply(c)
	ch := changes[KubeconfigAdminAddr]
	if ch.Action != resources.Create || ch.After[kcPath] != "demo.kubeconfig" {
		t.Fatalf("first plan: %s After %v", ch.Action, ch.After)
	}
	if _, ok := ch.After[kcSHA256].(resources.Unknown); !ok {
		t.Errorf("sha256 of a kubeconfig whose certificate is new = %v, want unknown", ch.After[kcSHA256])
	}
	rec := w.state[KubeconfigAdminAddr].Attrs
	if _, ok := rec[kcKey]; ok {
		t.Error("the state records the admin key of the kubeconfig")
	}
	path := filepath.Join(w.rc.WorkDir, "demo.kubeconfig")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	if rec[kcSHA256] != sha256Text(string(b)) {
		t.Error("recorded sha256 is not the file's")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(w.rc.WorkDir, ".*tmp*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	if again, _ := w.plan(c); again[KubeconfigAdminAddr].Action != resources.NoOp {
		t.Errorf("second plan: %+v", again[KubeconfigAdminAddr])
	}

	if _, err := os.Stat(testKubectl); err != nil {
		t.Logf("kubectl not found at %s: kubectl check skipped", testKubectl)
		return
	}
	kubectl := func(jsonpath string) string {
		out, err := exec.Command(testKubectl, "--kubeconfig", path, "config", "view", "--raw", "-o", "jsonpath="+jsonpath).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl: %v\n%s", err, out)
		}
		return string(out)
	}
	if got := kubectl("{.clusters[0].cluster.server}"); got != "https://10.77.0.11:6443" {
		t.Errorf("server = %q", got)
	}
	if got := kubectl("{.current-context}"); got != "kubernetes-admin@demo" {
		t.Errorf("current-context = %q", got)
	}
	certData, _ := base64.StdEncoding.DecodeString(kubectl("{.users[0].user.client-certificate-data}"))
	if string(certData) != w.state["cert.admin"].Attrs[certCert] {
		t.Error("client-certificate-data is not cert.admin's certificate")
	}
	keyData, _ := base64.StdEncoding.DecodeString(kubectl("{.users[0].user.client-key-data}"))
	if string(keyData) != w.state["cert.admin"].Attrs[certKey] {
		t.Error("client-key-data is not cert.admin's key")
	}
	caData, _ := base64.StdEncoding.DecodeString(kubectl("{.clusters[0].cluster.certificate-authority-data}"))
	if string(caData) != w.state["pki.cluster_ca"].Attrs[pkiCert] {
		t.Error("certificate-authority-data is not the cluster CA")
	}
}

func TestKubeconfigDrift(t *testing.T) {
	w := newPKIWorld(t)
	c := pkiCluster()
	w.apply(c)
	ctx := context.Background()
	path := filepath.Join(w.rc.WorkDir, "demo.kubeconfig")
	written, _ := os.ReadFile(path)
	prior := *w.state[KubeconfigAdminAddr]

	live, drift, err := w.kc.Read(ctx, w.rc, prior)
	if err != nil || drift != nil || !reflect.DeepEqual(live, prior.Attrs) {
		t.Fatalf("unchanged file: %v %v %v", live, drift, err)
	}

	if err := os.WriteFile(path, []byte("apiVersion: v1\n# edited\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	live, drift, err = w.kc.Read(ctx, w.rc, prior)
	want := []resources.Reason{{Code: resources.ReasonDrift, Detail: "demo.kubeconfig was modified outside eggo"}}
	if err != nil || !reflect.DeepEqual(drift, want) || live[kcSHA256] != prior.Attrs[kcSHA256] {
		t.Fatalf("modified file: drift %v err %v sha256 kept %v", drift, err, live[kcSHA256] == prior.Attrs[kcSHA256])
	}
	// A modified file is not eggo's any more: Delete leaves it.
	if _, err := w.kc.Delete(ctx, w.rc, resources.Object{Addr: prior.Addr, Attrs: live}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("Delete removed a file someone changed: %v", err)
	}
	// Plan (after refresh) rewrites it.
	w.state[KubeconfigAdminAddr] = &resources.Object{Addr: prior.Addr, Kind: prior.Kind, Attrs: live}
	changes := w.apply(c)
	if ch := changes[KubeconfigAdminAddr]; ch.Action != resources.Update || !reflect.DeepEqual(ch.Reasons, want) {
		t.Errorf("plan after drift: %s %v", ch.Action, ch.Reasons)
	}
	if b, _ := os.ReadFile(path); string(b) != string(written) {
		t.Error("apply did not restore the kubeconfig")
	}
	if _, ok := w.state[KubeconfigAdminAddr].Attrs[kcDrift]; ok {
		t.Error("drift is still recorded after the rewrite")
	}

	os.Remove(path)
	_, drift, _ = w.kc.Read(ctx, w.rc, *w.state[KubeconfigAdminAddr])
	if len(drift) != 1 || drift[0].Detail != "demo.kubeconfig is missing" {
		t.Errorf("missing file: %v", drift)
	}

	// Unchanged: Delete removes it.
	w.apply(c)
	if _, err := w.kc.Delete(ctx, w.rc, *w.state[KubeconfigAdminAddr]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("Delete left eggo's own file: %v", err)
	}
}

func TestKubeconfigFollowsCertAndName(t *testing.T) {
	w := newPKIWorld(t)
	c := pkiCluster()
	w.apply(c)
	c.APIEndpoint = "lb.example.com:443"
	changes := w.apply(c)
	ch := changes[KubeconfigAdminAddr]
	if ch.Action != resources.Update || !strings.Contains(ch.Reasons[0].Detail, "server") {
		t.Errorf("new endpoint: %s %v", ch.Action, ch.Reasons)
	}
	// The apiserver certificates name the new endpoint too.
	if got := changes[`cert.apiserver["m0"]`]; got.Action != resources.Replace || !strings.Contains(got.Reasons[0].Detail, "+ lb.example.com") {
		t.Errorf("apiserver[m0]: %s %v", got.Action, got.Reasons)
	}

	c.Name = "prod"
	w.apply(c)
	if _, err := os.Stat(filepath.Join(w.rc.WorkDir, "prod.kubeconfig")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(w.rc.WorkDir, "demo.kubeconfig")); !os.IsNotExist(err) {
		t.Errorf("renamed cluster left the old kubeconfig: %v", err)
	}

	c.Name = "../evil"
	if _, err := w.kc.Expand(c); err == nil || !strings.Contains(err.Error(), "kubeconfig.admin") {
		t.Errorf("cluster name with a slash: %v", err)
	}
}
