package config

import (
	"os"
	"path/filepath"
	"strings"
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

// FuzzNesting nests an expression: opener n times, then middle, then
// closer n times, as local x (withLocal). Load must return, with a
// "Nesting too deep" error or without, never run out of stack or hang.
// The seeds are the shapes of TestDeepNestingIsAnError, 100000 deep when
// n is 0.
func FuzzNesting(f *testing.F) {
	f.Add("[", "", "]", uint32(0))
	f.Add("(", "1", ")", uint32(0))
	f.Add("{a=", "1", "}", uint32(0))
	f.Add("abs(", "1", ")", uint32(0))
	f.Add("true ? 1 : ", "1", "", uint32(0))
	f.Add("-", "1", "", uint32(300))
	f.Add("!", "true", "", uint32(255))
	f.Add("1+", "1", "", uint32(0))
	f.Add("", "[1]", "[0]", uint32(0))
	f.Add(`"${`, "1", `}"`, uint32(0))
	f.Add("%{if true}", "x", "%{endif}", uint32(0))
	f.Add("[for x in ", "[1]", " : x]", uint32(0))
	f.Add("<<EOT\n${", "1", "}\nEOT\n", uint32(1000))
	f.Add("try(", "{}", ", 1)", uint32(200)) // 2^200 evaluations with HCL's own try
	f.Fuzz(func(t *testing.T, opener, middle, closer string, n uint32) {
		depth := int(n % 200000)
		if depth == 0 {
			depth = deep
		}
		if len(opener)+len(closer) > 64 {
			return // the depth is the point, not the width
		}
		// At most about 256 KiB of text, still far past the limit (4096
		// levels of the widest opener): a file of megabytes is lexed in
		// seconds, linearly, and on a busy machine under the fuzzer's
		// instrumentation one input passed the 10 s a fuzz worker may
		// take on one input ("fuzzing process hung").
		if w := len(opener) + len(closer); w > 0 {
			depth = min(depth, (1<<18)/w)
		}
		expr := strings.Repeat(opener, depth) + middle + strings.Repeat(closer, depth)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(withLocal(expr)), 0o644); err != nil {
			t.Fatal(err)
		}
		if cfg, _ := Load(dir, VarInput{}); cfg == nil {
			t.Fatal("Load returned a nil Config")
		}
	})
}
