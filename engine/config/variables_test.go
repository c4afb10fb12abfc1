package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const varsConfig = minimal + `
variable "user" {
  default = "from-default"
}
variable "sizes" {
  type    = list(number)
  default = [1]
}
variable "raw" {}
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
output "user" {
  value = var.user
}
output "sizes" {
  value = jsonencode(var.sizes)
}
output "raw" {
  value = var.raw
}
`

func TestVariablePrecedence(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.hcl": varsConfig})
	files := t.TempDir()
	hclFile := filepath.Join(files, "a.hcl")
	jsonFile := filepath.Join(files, "b.json")
	os.WriteFile(hclFile, []byte(`user = "from-hcl-file"
sizes = [2, 3]
`), 0o644)
	os.WriteFile(jsonFile, []byte(`{"user": "from-json-file"}`), 0o644)

	cases := []struct {
		name                string
		in                  VarInput
		wantUser, wantSizes string
		wantRaw             string
	}{
		{name: "default", in: VarInput{Vars: []string{"raw=r"}},
			wantUser: "from-default", wantSizes: "[1]", wantRaw: "r"},
		{name: "environment beats default", in: VarInput{Vars: []string{"raw=r"}, Env: []string{"EGGO_VAR_user=from-env", "PATH=/bin"}},
			wantUser: "from-env", wantSizes: "[1]", wantRaw: "r"},
		{name: "var file beats environment", in: VarInput{Vars: []string{"raw=r"}, VarFiles: []string{hclFile}, Env: []string{"EGGO_VAR_user=from-env"}},
			wantUser: "from-hcl-file", wantSizes: "[2,3]", wantRaw: "r"},
		{name: "later var file beats earlier, JSON by extension", in: VarInput{Vars: []string{"raw=r"}, VarFiles: []string{hclFile, jsonFile}},
			wantUser: "from-json-file", wantSizes: "[2,3]", wantRaw: "r"},
		{name: "-var beats everything, last one wins", in: VarInput{
			Vars: []string{"user=first", "raw=r", "user=second"}, VarFiles: []string{jsonFile}, Env: []string{"EGGO_VAR_user=from-env"}},
			wantUser: "second", wantSizes: "[1]", wantRaw: "r"},
		{name: "non-string type parses -var as HCL", in: VarInput{Vars: []string{"raw=r", "sizes=[4, 5]"}},
			wantUser: "from-default", wantSizes: "[4,5]", wantRaw: "r"},
		{name: "environment parsed like -var", in: VarInput{Vars: []string{"raw=r"}, Env: []string{"EGGO_VAR_sizes=[6]"}},
			wantUser: "from-default", wantSizes: "[6]", wantRaw: "r"},
		{name: "untyped -var is taken literally", in: VarInput{Vars: []string{"raw=[1, 2]"}},
			wantUser: "from-default", wantSizes: "[1]", wantRaw: "[1, 2]"},
		{name: "value may contain '='", in: VarInput{Vars: []string{"raw=a=b"}},
			wantUser: "from-default", wantSizes: "[1]", wantRaw: "a=b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := mustLoad(t, dir, c.in)
			got := map[string]string{}
			for _, o := range cfg.Outputs {
				got[o.Name] = o.Value.AsString()
			}
			if got["user"] != c.wantUser || got["sizes"] != c.wantSizes || got["raw"] != c.wantRaw {
				t.Fatalf("user=%q sizes=%q raw=%q; want %q %q %q", got["user"], got["sizes"], got["raw"],
					c.wantUser, c.wantSizes, c.wantRaw)
			}
		})
	}
}

func TestVariableErrors(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.hcl": varsConfig})
	badFile := filepath.Join(t.TempDir(), "bad.hcl")
	os.WriteFile(badFile, []byte("sizes = \"many\"\n"), 0o644)
	cases := []struct {
		name string
		in   VarInput
		want string
	}{
		{"missing required", VarInput{}, `No value for required variable`},
		{"bad HCL in -var", VarInput{Vars: []string{"raw=r", "sizes=[1,"}}, "<value for var.sizes>"},
		{"type mismatch from file names the file", VarInput{Vars: []string{"raw=r"}, VarFiles: []string{badFile}}, "bad.hcl:1"},
		{"unreadable var file names it", VarInput{Vars: []string{"raw=r"}, VarFiles: []string{"/nonexistent/x.hcl"}}, "/nonexistent/x.hcl"},
		{"-var without =", VarInput{Vars: []string{"raw"}}, "-var option number 1 is not NAME=VALUE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, diags := loadErrors(t, dir, c.in)
			if out := render(cfg, diags); !strings.Contains(out, c.want) {
				t.Fatalf("diagnostics do not mention %q:\n%s", c.want, out)
			}
		})
	}
}

func TestTypedVariableWithOptionalDefaults(t *testing.T) {
	cfg := mustLoad(t, writeDir(t, map[string]string{"main.hcl": minimal + `
variable "workers" {
  type = map(object({
    address = string
    arch    = optional(string, "amd64")
  }))
}
node "w" {
  for_each = var.workers
  address  = each.value.address
  arch     = each.value.arch
  roles    = ["master", "etcd", "worker"]
}
`}), VarInput{Vars: []string{`workers={ a = { address = "10.0.0.1" }, b = { address = "10.0.0.2", arch = "arm64" } }`}})
	if n := cfg.Cluster.Nodes; n[0].Arch != "amd64" || n[1].Arch != "arm64" {
		t.Fatalf("nodes = %+v", n)
	}
}
