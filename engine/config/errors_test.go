package config

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// expectation is one "# ERROR: summary" or "# WARNING: summary" annotation
// of testdata/errors.
type expectation struct {
	severity hcl.DiagnosticSeverity
	summary  string
	line     int // 0 for "# ERROR(no source):", a diagnostic without a range
	found    bool
}

var (
	diagAnnotation = regexp.MustCompile(`#\s*(ERROR|WARNING)(\(no source\))?:\s*(.+?)\s*$`)
	varAnnotation  = regexp.MustCompile(`^#\s*VAR:\s*(\S+)\s*$`)
)

// TestErrors loads each testdata/errors/*.hcl alone and checks that every
// error and warning diagnostic is annotated on the line it points at
// (Terraform's style), and every annotation is matched. A file with
// warnings and no errors must load.
func TestErrors(t *testing.T) {
	paths, err := filepath.Glob("testdata/errors/*.hcl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no error cases: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".hcl"), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, vars := annotations(t, string(src))
			if len(want) == 0 {
				t.Fatal("no # ERROR or # WARNING annotation")
			}
			dir := writeDir(t, map[string]string{"main.hcl": string(src)})
			var cfg *Config
			var diags hcl.Diagnostics
			if wantsErrors(want) {
				cfg, diags = loadErrors(t, dir, VarInput{Vars: vars})
			} else {
				cfg, diags = Load(dir, VarInput{Vars: vars})
				if diags.HasErrors() || cfg.Cluster == nil {
					t.Fatalf("a file with only warnings must load; got:\n%s", render(cfg, diags))
				}
			}
			if os.Getenv("EGGO_SHOW_ERRORS") != "" {
				t.Log(render(cfg, diags))
			}
			for _, d := range diags {
				if !matchExpectation(want, d) {
					t.Errorf("unexpected %s at %s: %s: %s", severityName(d.Severity), subjectString(d), d.Summary, d.Detail)
				}
				if d.Detail == "" {
					t.Errorf("%s %q has no detail saying what to do", severityName(d.Severity), d.Summary)
				}
			}
			for _, w := range want {
				if !w.found {
					t.Errorf("missing %s %q on line %d; got:\n%s", severityName(w.severity), w.summary, w.line, render(cfg, diags))
				}
			}
		})
	}
}

func annotations(t *testing.T, src string) ([]*expectation, []string) {
	var want []*expectation
	var vars []string
	sc := bufio.NewScanner(strings.NewReader(src))
	for line := 1; sc.Scan(); line++ {
		if m := varAnnotation.FindStringSubmatch(sc.Text()); m != nil {
			vars = append(vars, m[1])
		}
		if m := diagAnnotation.FindStringSubmatch(sc.Text()); m != nil {
			e := &expectation{severity: hcl.DiagError, summary: m[3], line: line}
			if m[1] == "WARNING" {
				e.severity = hcl.DiagWarning
			}
			if m[2] != "" {
				e.line = 0
			}
			want = append(want, e)
		}
	}
	return want, vars
}

func wantsErrors(want []*expectation) bool {
	for _, w := range want {
		if w.severity == hcl.DiagError {
			return true
		}
	}
	return false
}

func matchExpectation(want []*expectation, d *hcl.Diagnostic) bool {
	for _, w := range want {
		if w.severity != d.Severity || !strings.Contains(d.Summary, w.summary) {
			continue
		}
		if (w.line == 0 && d.Subject == nil) || (d.Subject != nil && d.Subject.Start.Line == w.line) {
			w.found = true
			return true
		}
	}
	return false
}

func severityName(s hcl.DiagnosticSeverity) string {
	if s == hcl.DiagWarning {
		return "warning"
	}
	return "error"
}

func subjectString(d *hcl.Diagnostic) string {
	if d.Subject == nil {
		return "(no source)"
	}
	return d.Subject.String()
}
