package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary text as the one file of a configuration: Load
// must return diagnostics, never panic, in validate mode too. Seeds: the valid and error test
// files (testdata/fuzz/FuzzLoad holds them in the corpus format as well).
func FuzzLoad(f *testing.F) {
	for _, pattern := range []string{"testdata/valid/*/*.hcl", "testdata/errors/*.hcl"} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			if src, err := os.ReadFile(p); err == nil {
				f.Add(string(src))
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, diags := Load(dir, VarInput{Env: []string{"EGGO_VAR_x=1"}})
		if cfg == nil {
			t.Fatal("Load returned a nil Config")
		}
		if !diags.HasErrors() && (cfg.Cluster == nil || len(cfg.Cluster.Nodes) == 0 || cfg.Hash == "") {
			t.Fatalf("Load succeeded without a usable cluster: %+v", cfg)
		}
		// Validate mode: variables without a value are unknown values.
		cfg, diags = Load(dir, VarInput{Validate: true})
		if cfg == nil || !diags.HasErrors() && cfg.Cluster == nil {
			t.Fatalf("Load in validate mode returned no cluster and no error: %+v", cfg)
		}
	})
}
