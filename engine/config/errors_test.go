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

// expectation is one "# ERROR: summary" annotation of testdata/errors.
type expectation struct {
	summary string
	line    int // 0 for "# ERROR(no source):", a diagnostic without a range
	found   bool
}

var (
	errorAnnotation = regexp.MustCompile(`#\s*ERROR(\(no source\))?:\s*(.+?)\s*$`)
	varAnnotation   = regexp.MustCompile(`^#\s*VAR:\s*(\S+)\s*$`)
)

// TestErrors loads each testdata/errors/*.hcl alone and checks that every
// error diagnostic is annotated on the line it points at (Terraform's
// style), and every annotation is matched.
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
				t.Fatal("no # ERROR annotation")
			}
			dir := writeDir(t, map[string]string{"main.hcl": string(src)})
			cfg, diags := loadErrors(t, dir, VarInput{Vars: vars})
			if os.Getenv("EGGO_SHOW_ERRORS") != "" {
				t.Log(render(cfg, diags))
			}
			for _, d := range diags {
				if d.Severity != hcl.DiagError {
					continue
				}
				if !matchExpectation(want, d) {
					t.Errorf("unexpected error at %s: %s: %s", subjectString(d), d.Summary, d.Detail)
				}
				if d.Detail == "" {
					t.Errorf("error %q has no detail saying what to do", d.Summary)
				}
			}
			for _, w := range want {
				if !w.found {
					t.Errorf("missing error %q on line %d; got:\n%s", w.summary, w.line, render(cfg, diags))
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
		if m := errorAnnotation.FindStringSubmatch(sc.Text()); m != nil {
			e := &expectation{summary: m[2], line: line}
			if m[1] != "" {
				e.line = 0
			}
			want = append(want, e)
		}
	}
	return want, vars
}

func matchExpectation(want []*expectation, d *hcl.Diagnostic) bool {
	for _, w := range want {
		if !strings.Contains(d.Summary, w.summary) {
			continue
		}
		if (w.line == 0 && d.Subject == nil) || (d.Subject != nil && d.Subject.Start.Line == w.line) {
			w.found = true
			return true
		}
	}
	return false
}

func subjectString(d *hcl.Diagnostic) string {
	if d.Subject == nil {
		return "(no source)"
	}
	return d.Subject.String()
}
