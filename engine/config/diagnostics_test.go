package config

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteDiagnosticsShowsSnippet(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.hcl": minimal + `
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "captain"]
}
`})
	cfg, diags := loadErrors(t, dir, VarInput{})
	var buf bytes.Buffer
	if err := WriteDiagnostics(&buf, cfg.Files, diags, false, 80); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"Error: Unknown role",
		"main.hcl line 8",
		`roles   = ["master", "captain"]`, // the source line itself
		"master, worker, etcd, loadbalance",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	buf.Reset()
	WriteDiagnostics(&buf, cfg.Files, diags, true, 80)
	if !strings.Contains(buf.String(), "\x1b[") {
		t.Errorf("color output has no escape sequences:\n%q", buf.String())
	}
}

func TestHash(t *testing.T) {
	files := map[string]string{
		"main.hcl": minimal + `
variable "ip" {
  default = "10.0.0.1"
}
node "m0" {
  address = var.ip
  roles   = ["master", "etcd"]
  labels  = { motd = substr(sha256(file("motd")), 0, 63) }
}
`,
		"motd": "v1",
	}
	dir := writeDir(t, files)
	base := mustLoad(t, dir, VarInput{}).Hash
	if len(base) != 64 {
		t.Fatalf("hash = %q", base)
	}
	if again := mustLoad(t, dir, VarInput{}).Hash; again != base {
		t.Fatal("hash differs between two loads of the same input")
	}
	if h := mustLoad(t, dir, VarInput{Vars: []string{"ip=10.0.0.2"}}).Hash; h == base {
		t.Error("hash ignores variable values")
	}
	files["motd"] = "v2"
	if h := mustLoad(t, writeDir(t, files), VarInput{}).Hash; h == base {
		t.Error("hash ignores files read by file()")
	}
	files["motd"] = "v1"
	files["main.hcl"] += "\n# a comment\n"
	if h := mustLoad(t, writeDir(t, files), VarInput{}).Hash; h == base {
		t.Error("hash ignores source changes")
	}
}
