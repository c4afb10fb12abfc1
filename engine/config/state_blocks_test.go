package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const ageRecipient = "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"

func TestSecretsAndEtcdBackend(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"main.hcl": minimal + oneNode + `
variable "ops_key" { default = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHFHBsjFeWQ4ziUoFvd6qHjHl3RnGDeUMR6WD6ACxlgC ops@example" }
secrets {
  recipients = [var.ops_key, file("team.keys")]
}
backend "etcd" {
  endpoints = ["https://127.0.0.1:2379", "https://10.0.0.6:2379"]
  prefix    = "/clusters"
  ca_file   = "pki/ca.crt"
  cert_file = "pki/eggo.crt"
  key_file  = "pki/eggo.key"
  lock_ttl  = "10s"
  lock_timeout = "0s"
}
`,
		"team.keys": "# the team\n" + ageRecipient + "\n\n",
	})
	cfg := mustLoad(t, dir, VarInput{})
	if cfg.Secrets == nil || len(cfg.Secrets.Recipients) != 2 || cfg.Secrets.Recipients[1] != ageRecipient ||
		!strings.HasPrefix(cfg.Secrets.Recipients[0], "ssh-ed25519 ") {
		t.Fatalf("secrets = %+v", cfg.Secrets)
	}
	be := cfg.Backend
	if be == nil || be.Type != "etcd" || len(be.Endpoints) != 2 || be.Prefix != "/clusters/" ||
		be.CAFile != filepath.Join(dir, "pki/ca.crt") || be.KeyFile != filepath.Join(dir, "pki/eggo.key") ||
		be.LockTTL != 10*time.Second || be.LockTimeout != 0 {
		t.Fatalf("backend = %+v", be)
	}
}

func TestKubernetesBackend(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.hcl": minimal + oneNode + `
backend "kubernetes" {
  kubeconfig   = "kube/admin.conf"
  context      = "ops"
  namespace    = "eggo"
  lock_ttl     = "30s"
  lock_timeout = "2m"
}
`})
	be := mustLoad(t, dir, VarInput{}).Backend
	if be == nil || be.Type != "kubernetes" || be.Kubeconfig != filepath.Join(dir, "kube/admin.conf") || be.Context != "ops" ||
		be.Namespace != "eggo" || be.LockTTL != 30*time.Second || be.LockTimeout != 2*time.Minute || !be.Shared() {
		t.Fatalf("backend = %+v", be)
	}
	if be.String() != "kubernetes namespace eggo" {
		t.Errorf("String() = %q", be.String())
	}

	// Everything has a default: in a pod its service account, else
	// $KUBECONFIG or ~/.kube/config, and the context's namespace.
	dir = writeDir(t, map[string]string{"main.hcl": minimal + oneNode + `backend "kubernetes" {}` + "\n"})
	be = mustLoad(t, dir, VarInput{}).Backend
	if be.Kubeconfig != "" || be.Context != "" || be.Namespace != "" || be.LockTTL != 15*time.Second || be.LockTimeout != 0 {
		t.Fatalf("defaults = %+v", be)
	}
}

func TestStateBlockErrors(t *testing.T) {
	tests := []struct{ name, hcl, want string }{
		{"private key as recipient", `secrets { recipients = ["AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ"] }`, "this is a private key"},
		{"bad recipient", `secrets { recipients = ["age1", "bob"] }`, "recipients[0] is not usable"},
		{"empty", `secrets { recipients = [] }`, "needs at least one recipient"},
		{"two secrets blocks", `secrets { recipients = ["` + ageRecipient + `"] }
secrets { recipients = ["` + ageRecipient + `"] }`, "one is already at main.hcl:10"},
		{"unknown backend", `backend "s3" {}`, `Backend "s3" is not one eggo has; use "file" (the default: eggo.state beside the configuration), "etcd" or "kubernetes"`},
		{"kubernetes: bad namespace", `backend "kubernetes" { namespace = "Eggo_State" }`, `namespace = "Eggo_State" is not a Kubernetes namespace name`},
		{"kubernetes: short ttl", `backend "kubernetes" { lock_ttl = "1s" }`, "lock_ttl must be at least 2s"},
		{"kubernetes: negative lock_timeout", `backend "kubernetes" { lock_timeout = "-5s" }`, "lock_timeout must be a duration"},
		{"kubernetes: etcd's attribute", `backend "kubernetes" { endpoints = ["https://127.0.0.1:2379"] }`, `An argument named "endpoints" is not expected here`},
		{"bad endpoint", `backend "etcd" { endpoints = ["127.0.0.1:2379"] }`, "is not an URL"},
		{"half a client cert", `backend "etcd" {
  endpoints = ["https://127.0.0.1:2379"]
  cert_file = "a.crt"
}`, "cert_file and key_file go together"},
		{"short ttl", `backend "etcd" {
  endpoints = ["https://127.0.0.1:2379"]
  lock_ttl = "1s"
}`, "lock_ttl must be at least 2s"},
		{"negative lock_timeout", `backend "etcd" {
  endpoints = ["https://127.0.0.1:2379"]
  lock_timeout = "-1s"
}`, "lock_timeout must be a duration"},
		{"long ttl", `backend "kubernetes" { lock_ttl = "2h" }`, "lock_ttl must be at most 1h; got 2h"},
		{"long lock_timeout", `backend "kubernetes" { lock_timeout = "25h" }`, "lock_timeout must be at most 24h; got 25h"},
		{"endpoint port", `backend "etcd" { endpoints = ["https://127.0.0.1:0"] }`, "has a port out of the range 1 to 65535"},
		{"unknown attribute", `backend "etcd" {
  endpoints = ["https://127.0.0.1:2379"]
  password = "x"
}`, `An argument named "password" is not expected here`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": minimal + oneNode + tt.hcl}), VarInput{})
			got := strings.Join(strings.Fields(render(cfg, diags)), " ")
			if !strings.Contains(got, tt.want) || !strings.Contains(got, "main.hcl line ") {
				t.Errorf("errors:\n%s\nwant %q with the file and line", got, tt.want)
			}
			for _, d := range diags {
				if strings.Contains(d.Detail, "QQQQQQQQ") {
					t.Errorf("a private key echoed in the message: %s", d.Detail)
				}
			}
		})
	}
}

// The kubernetes backend names Secrets after the cluster: a name that is
// no DNS label is refused at the backend block, which the others accept.
func TestKubernetesBackendNeedsADNSLabelClusterName(t *testing.T) {
	cluster := "cluster \"Demo_1\" {\n  kubernetes_version = \"1.31.4\"\n}\n"
	cfg, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": cluster + oneNode + "backend \"kubernetes\" {\n}\n"}), VarInput{})
	got := strings.Join(strings.Fields(render(cfg, diags)), " ")
	for _, want := range []string{"Cluster name unusable in Kubernetes", `"Demo_1" is not`, "main.hcl line 9"} {
		if !strings.Contains(got, want) {
			t.Errorf("errors:\n%s\nwant %q", got, want)
		}
	}
	mustLoad(t, writeDir(t, map[string]string{"main.hcl": cluster + oneNode + "backend \"file\" {\n}\n"}), VarInput{})
}

// Credentials in an etcd endpoint are refused at the endpoint, and the
// password is not repeated, however the URL is malformed.
func TestEndpointCredentialsNotEchoed(t *testing.T) {
	for _, ep := range []string{
		"https://eggo:hunter2@10.0.0.5:2379",
		"https://:hunter2@10.0.0.5:2379",
		"https://eggo:hun ter2@10.0.0.5:2379",
		"https://eggo:hunter2/x@10.0.0.5:2379",
		"eggo:hunter2@10.0.0.5:2379",
	} {
		src := minimal + oneNode + "backend \"etcd\" {\n  endpoints = [\"" + ep + "\"]\n}\n"
		cfg, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": src}), VarInput{})
		if len(diags) != 1 || diags[0].Summary != "Credentials in an etcd endpoint" || diags[0].Subject.Start.Line != 11 {
			t.Errorf("%s: diagnostics = %v", ep, diags)
		}
		var out strings.Builder
		if err := WriteDiagnostics(&out, cfg.Files, diags, false, 100); err != nil {
			t.Fatal(err)
		}
		detail := strings.ReplaceAll(out.String(), ep, "") // the snippet shows the line as written
		if strings.Contains(detail, "hunter2") || strings.Contains(detail, "ter2") {
			t.Errorf("%s: the password in the message:\n%s", ep, out.String())
		}
	}
}
