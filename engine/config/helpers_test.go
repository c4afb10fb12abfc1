package config

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// writeDir writes files (name → content) into a fresh directory.
func writeDir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// mustLoad loads dir and fails the test with printed diagnostics on error.
func mustLoad(t testing.TB, dir string, in VarInput) *Config {
	t.Helper()
	cfg, diags := Load(dir, in)
	if diags.HasErrors() {
		t.Fatalf("Load(%s): %s", dir, render(cfg, diags))
	}
	return cfg
}

func render(cfg *Config, diags hcl.Diagnostics) string {
	var buf bytes.Buffer
	var files map[string][]byte
	if cfg != nil {
		files = cfg.Files
	}
	_ = WriteDiagnostics(&buf, files, diags, false, 100)
	return buf.String()
}

// loadErrors loads a configuration that must fail and returns its errors.
func loadErrors(t testing.TB, dir string, in VarInput) (*Config, hcl.Diagnostics) {
	t.Helper()
	cfg, diags := Load(dir, in)
	if !diags.HasErrors() {
		t.Fatalf("Load(%s) succeeded; want errors", dir)
	}
	if cfg == nil || cfg.Cluster != nil {
		t.Fatalf("Load(%s) with errors must return a Config with Files and no Cluster", dir)
	}
	return cfg, diags
}

// minimal is a valid cluster with one node, to add blocks to.
const minimal = `
cluster "demo" {
  kubernetes_version = "1.31.4"
}
`
