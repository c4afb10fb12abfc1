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

func TestStateBlockErrors(t *testing.T) {
	tests := []struct{ name, hcl, want string }{
		{"private key as recipient", `secrets { recipients = ["AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ"] }`, "this is a private key"},
		{"bad recipient", `secrets { recipients = ["age1", "bob"] }`, "recipients[0] is not usable"},
		{"empty", `secrets { recipients = [] }`, "needs at least one recipient"},
		{"two secrets blocks", `secrets { recipients = ["` + ageRecipient + `"] }
secrets { recipients = ["` + ageRecipient + `"] }`, "one is already at main.hcl:10"},
		{"unknown backend", `backend "s3" {}`, `Backend "s3" is not one eggo has`},
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
