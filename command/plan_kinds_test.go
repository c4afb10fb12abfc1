package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// TestPlanAllKinds plans a small cluster with every registered kind: the
// plan must name the Kubernetes resources with readable addresses and never
// show private key material, in the human view nor in -json.
func TestPlanAllKinds(t *testing.T) {
	withAllKinds(t)
	f := newFixture(t)
	f.write("main.hcl", `cluster "t" {
  kubernetes_version = "1.31.4"
  packages           = "./pkg"
}

connection {
  type         = "local"
  password_env = "EGGO_TEST_PASSWORD"
}

node "m0" {
  address = "127.0.0.1"
  roles   = ["master", "etcd"]
}

node "w0" {
  address = "127.0.0.2"
  roles   = ["worker"]
}

node "lb" {
  address = "127.0.0.3"
  roles   = ["loadbalance"]
}
`)
	// Stand-ins for the programs the roles need (this test only plans:
	// nothing is installed).
	for _, rel := range resources.RequiredBundleFiles() {
		standIn(t, filepath.Join(f.dir, "pkg", "amd64", rel))
	}
	human := f.mustRun(2, "plan", "-refresh=false", "-detailed-exitcode").out
	wantAddrs := []string{
		`pki.cluster_ca`, `cert.apiserver["m0"]`, `service.kubelet["w0"]`,
		`etcd_member.m0`, `k8s_node.w0`, `host.lb`,
	}
	for _, a := range wantAddrs {
		mustContain(t, "plan", human, "+ "+a+" {")
	}
	mustContain(t, "plan", human, "will be created")
	noKeyMaterial(t, "plan", human)

	js := f.mustRun(2, "plan", "-refresh=false", "-detailed-exitcode", "-json").out
	planned := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(js), "\n") {
		var m struct{ Type, Address, Action string }
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("-json line %q: %v", line, err)
		}
		if m.Type == "planned_change" {
			planned[m.Address] = m.Action
		}
	}
	for _, a := range wantAddrs {
		if planned[a] != "create" {
			t.Errorf("-json plans %s as %q, want create (planned: %v)", a, planned[a], planned)
		}
	}
	noKeyMaterial(t, "plan -json", js)

	// With the keys made (the CAs, certificates and kubeconfig apply
	// without a host), no view of a plan or of the state may show them.
	f.mustRun(0, "apply", "-auto-approve", "-refresh=false", "-target=kubeconfig.admin", `-target=cert.apiserver["m0"]`)
	st, err := os.ReadFile(f.statePath())
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "state", string(st), `"cert.apiserver[\"m0\"]"`, `"pki.cluster_ca"`)
	for _, args := range [][]string{
		{"plan", "-refresh=false"},
		{"plan", "-refresh=false", "-json"},
		{"plan", "-refresh=false", `-replace=cert.apiserver["m0"]`, "-replace=pki.cluster_ca"},
		{"plan", "-refresh=false", "-destroy"},
		{"show"},
		{"show", "-json"},
		{"state", "show", `cert.apiserver["m0"]`},
		{"state", "show", "pki.cluster_ca"},
	} {
		r := f.mustRun(0, args...)
		noKeyMaterial(t, strings.Join(args, " "), r.all())
	}
	replaced := f.mustRun(0, "plan", "-refresh=false", `-replace=cert.apiserver["m0"]`).out
	mustContain(t, "plan -replace", replaced, `-/+ cert.apiserver["m0"] {`)
	// The key's own line: the certificate's PEM above it is random base64 that can hold "key".
	if !regexp.MustCompile(`~ key += ` + regexp.QuoteMeta(sensitiveText)).MatchString(replaced) {
		t.Errorf("plan -replace does not show the key as %s:\n%s", sensitiveText, replaced)
	}
}

func noKeyMaterial(t *testing.T, what, out string) {
	t.Helper()
	for _, s := range []string{"PRIVATE KEY", "BEGIN RSA", "BEGIN EC"} {
		if strings.Contains(out, s) {
			t.Fatalf("%s shows key material (%q):\n%s", what, s, out)
		}
	}
}

// standIn writes a placeholder file at p.
func standIn(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("stand-in\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}
