package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/host"
	"github.com/eggo-project/eggo/state"
)

// expansionErrorCases are errors the kinds (or the engine) find only
// while they expand the model, after the configuration loaded without a
// diagnostic; each is blamed on the attribute at fault.
var expansionErrorCases = []struct {
	name  string
	kinds []resources.Kind // nil: every kind
	args  []string
	setup func(f *fixture)
	quote string // the source line the snippet must show
}{
	{
		// The host kind reads packages/<arch> for the node's arch.
		name: "arch_without_bundle", kinds: []resources.Kind{host.New()}, args: []string{"plan"},
		setup: func(f *fixture) { f.writeConfig("  arch    = \"arm64\"\n") },
		quote: `  arch    = "arm64"`,
	},
	{
		// The fixture's bundle holds no etcd, which the etcd role needs.
		name: "role_needs_bundle_file", args: []string{"validate"},
		quote: `  roles   = ["master", "etcd"]`,
	},
	{
		name: "coredns_image_missing", args: []string{"plan"},
		setup: func(f *fixture) {
			for _, rel := range resources.RequiredBundleFiles() {
				if rel != resources.CoreDNSArchive {
					f.bundleAt(rel)
				}
			}
			f.write("main.hcl", `cluster "t" {
  kubernetes_version = "1.31.4"
  packages           = "./pkg"

  addons {
    coredns = true
  }
}

node "m1" {
  address = "127.0.0.1"
  roles   = ["master", "etcd"]
}

node "w1" {
  address = "127.0.0.2"
  roles   = ["worker"]
}
`)
		},
		quote: `    coredns = true`,
	},
	{
		// The state says the cluster runs 1.31.4; the configuration asks
		// for 1.33.0, skipping 1.32.
		name: "kubernetes_minor_skipped", args: []string{"plan"},
		setup: func(f *fixture) {
			for _, rel := range resources.RequiredBundleFiles() {
				f.bundleAt(rel)
			}
			b, err := os.ReadFile(filepath.Join(f.dir, "main.hcl"))
			if err != nil {
				f.t.Fatal(err)
			}
			f.write("main.hcl", strings.Replace(string(b), `"1.31.4"`, `"1.33.0"`, 1))
			st := state.New()
			st.Serial = 1
			st.Resources = []state.Resource{{Address: `service.kube-apiserver["n1"]`, Kind: "service", Node: "n1",
				Attributes: map[string]any{"version": "1.31.4"}}}
			if err := state.NewStore(f.statePath()).Write(st); err != nil {
				f.t.Fatal(err)
			}
		},
		quote: `  kubernetes_version = "1.33.0"`,
	},
	{
		// Two kinds declaring one address: the engine's own check.
		name: "duplicate_resource", kinds: []resources.Kind{host.New(), host.New()}, args: []string{"plan"},
		quote: `node "n1" {`,
	},
}

// TestExpansionErrorsShowTheirSource: an error found while the kinds
// expand the model is shown as the configuration's diagnostics are — its
// summary, the source line of the attribute at fault, what is wrong — and
// not as one "main.hcl:12: …" line.
func TestExpansionErrorsShowTheirSource(t *testing.T) {
	for _, tc := range expansionErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			withKinds(t, tc.kinds)
			if tc.setup != nil {
				tc.setup(f)
			}
			r := f.run(tc.args...)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\n%s", r.code, r.all())
			}
			if !quotes(r.err, tc.quote) {
				t.Errorf("stderr does not quote %q:\n%s", tc.quote, r.err)
			}
			checkUnwrappedGolden(t, filepath.Join("testdata", "expand_errors", tc.name+".golden"),
				strings.ReplaceAll(r.err, f.dir, "$DIR"))
		})
	}
}

// TestExpansionErrorJSONHasRange: with -json the same error is one
// diagnostic whose range is the attribute's, as a configuration
// diagnostic's is.
func TestExpansionErrorJSONHasRange(t *testing.T) {
	f := newFixture(t)
	withKinds(t, nil)
	r := f.run("validate", "-json")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.all())
	}
	var d struct {
		Type, Severity, Summary, Detail string
		Range                           *struct {
			Filename   string
			Start, End struct{ Line, Column, Byte int }
		}
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.out)), &d); err != nil {
		t.Fatalf("not one JSON message: %v\n%s", err, r.out)
	}
	if d.Type != "diagnostic" || d.Severity != "error" || d.Summary != "Missing file in the package bundle" {
		t.Fatalf("message %+v, want an error diagnostic about the bundle\n%s", d, r.out)
	}
	// roles = ["master", "etcd"] is line 13 of the fixture's main.hcl, its
	// value from column 13.
	if d.Range == nil || d.Range.Filename != "main.hcl" || d.Range.Start.Line != 13 || d.Range.Start.Column != 13 ||
		d.Range.End.Line != 13 || d.Range.End.Column != 31 {
		t.Fatalf("range %+v, want main.hcl line 13 columns 13-31 (the roles)\n%s", d.Range, r.out)
	}
	if !strings.Contains(d.Detail, `node "n1" needs /usr/local/bin/etcd`) {
		t.Errorf("detail %q", d.Detail)
	}
}

// TestConfigDiagnosticJSONHasRange: a configuration diagnostic has the
// same range in JSON.
func TestConfigDiagnosticJSONHasRange(t *testing.T) {
	f := newFixture(t)
	f.writeConfig("  arch    = 7\n  colour  = \"red\"\n")
	r := f.run("validate", "-json")
	if r.code != 1 || !strings.Contains(r.out, `"range":{"end":{"byte":`) ||
		!strings.Contains(r.out, `"filename":"main.hcl","start":{"byte":`) {
		t.Fatalf("exit %d, want 1 and a diagnostic with a range:\n%s", r.code, r.all())
	}
}

// quotes reports whether text shows source as a snippet's numbered line
// ("  14:   arch    = ...").
func quotes(text, source string) bool {
	for _, line := range strings.Split(text, "\n") {
		if n, src, ok := strings.Cut(strings.TrimLeft(line, " "), ": "); ok && src == source && strings.Trim(n, "0123456789") == "" {
			return true
		}
	}
	return false
}

// withKinds plans with kinds (nil: every kind) for one test.
func withKinds(t *testing.T, kinds []resources.Kind) {
	saved := testKinds
	testKinds = kinds
	t.Cleanup(func() { testKinds = saved })
}

// bundleAt adds an empty executable to the package bundle at rel, a path
// under a node's root (the fixture's bundle() puts files under its temp
// root instead).
func (f *fixture) bundleAt(rel string) {
	f.t.Helper()
	p := filepath.Join(f.dir, "pkg", "amd64", rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o755); err != nil {
		f.t.Fatal(err)
	}
}

// checkUnwrappedGolden compares got with the golden file at path (or
// rewrites it with -update). The text writer wraps the detail at 100
// columns, and the temporary directory's name (replaced by $DIR) varies
// in length: the detail's lines are compared joined.
func checkUnwrappedGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./command/ -run ExpansionErrors -update to create it)", err)
	}
	if unwrap(got) != unwrap(string(want)) {
		t.Errorf("%s differs (rerun with -update if the change is intended)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

// unwrap joins the lines of each paragraph that quotes no source (the
// snippet's lines are indented).
func unwrap(s string) string {
	paras := strings.Split(s, "\n\n")
	for i, p := range paras {
		if !strings.Contains(p, "\n ") && !strings.HasPrefix(p, " ") {
			paras[i] = strings.ReplaceAll(p, "\n", " ")
		}
	}
	return strings.Join(paras, "\n\n")
}
