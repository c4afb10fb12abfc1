package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// deep is 100000 levels: before the limit, each of these shapes ran HCL's
// parser or evaluator out of Go's stack, which kills the process.
const deep = 100000

// deepShapes are expressions nested deep levels, each a way HCL recurses.
var deepShapes = map[string]string{
	"brackets":      strings.Repeat("[", deep) + strings.Repeat("]", deep),
	"parentheses":   strings.Repeat("(", deep) + "1" + strings.Repeat(")", deep),
	"objects":       strings.Repeat("{a=", deep) + "1" + strings.Repeat("}", deep),
	"calls":         strings.Repeat("abs(", deep) + "1" + strings.Repeat(")", deep),
	"conditionals":  strings.Repeat("true ? 1 : ", deep) + "1",
	"negations":     strings.Repeat("-", deep) + "1",
	"nots":          strings.Repeat("!", deep) + "true",
	"additions":     strings.Repeat("1+", deep) + "1",
	"indexes":       "[1]" + strings.Repeat("[0]", deep),
	"interpolation": strings.Repeat(`"${`, deep) + "1" + strings.Repeat(`}"`, deep),
	"template ifs":  `"` + strings.Repeat("%{if true}", deep) + "x" + strings.Repeat("%{endif}", deep) + `"`,
	"for":           strings.Repeat("[for x in ", deep) + "[1]" + strings.Repeat(" : x]", deep),
}

// withLocal is a valid configuration whose local x is expr (on line 3),
// used by the cluster so that it is evaluated.
func withLocal(expr string) string {
	return "locals {\n  y = 1\n  x = " + expr + "\n}\n" + `cluster "demo" {
  kubernetes_version = "1.31.4"
  labels             = { x = jsonencode(local.x) }
}
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
`
}

// wantNestingError checks that diags are one "Nesting too deep" error in
// file at line.
func wantNestingError(t *testing.T, diags hcl.Diagnostics, file string, line int) {
	t.Helper()
	if len(diags) != 1 || diags[0].Summary != "Nesting too deep" || diags[0].Subject == nil {
		t.Fatalf("diagnostics = %v, want one Nesting too deep", diags)
	}
	d := diags[0]
	if filepath.Base(d.Subject.Filename) != file || d.Subject.Start.Line != line {
		t.Errorf("at %s, want %s line %d", d.Subject, file, line)
	}
	if !strings.Contains(d.Detail, "nested deeper than 256 levels") {
		t.Errorf("detail = %q", d.Detail)
	}
}

func TestDeepNestingIsAnError(t *testing.T) {
	for name, expr := range deepShapes {
		t.Run(name, func(t *testing.T) {
			dir := writeDir(t, map[string]string{"main.hcl": withLocal(expr)})
			_, diags := loadErrors(t, dir, VarInput{})
			wantNestingError(t, diags, "main.hcl", 3)
		})
	}
	t.Run("blocks", func(t *testing.T) {
		src := withLocal("1") + strings.Repeat("x {\n", deep) + strings.Repeat("}\n", deep)
		_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": src}), VarInput{})
		wantNestingError(t, diags, "main.hcl", 12+maxNesting+1)
	})
}

// The other text eggo parses: -var values, variables files (HCL and
// JSON), template files and hook conditions.
func TestDeepNestingElsewhere(t *testing.T) {
	list := strings.Repeat("[", deep) + strings.Repeat("]", deep)
	cfg := withLocal("var.v") + "variable \"v\" {\n  type = any\n  default = []\n}\n"
	t.Run("-var", func(t *testing.T) {
		cfg := strings.Replace(cfg, "type = any", "type = list(any)", 1)
		_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": cfg}), VarInput{Vars: []string{"v=" + list}})
		wantNestingError(t, diags, "<value for var.v>", 1)
	})
	t.Run("EGGO_VAR_", func(t *testing.T) {
		cfg := strings.Replace(cfg, "type = any", "type = list(any)", 1)
		_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": cfg}), VarInput{Env: []string{"EGGO_VAR_v=" + list}})
		wantNestingError(t, diags, "<value for var.v>", 1)
	})
	for _, file := range []string{"deep.eggovars", "deep.json"} {
		t.Run(file, func(t *testing.T) {
			val := "v = " + list
			if strings.HasSuffix(file, ".json") {
				val = `{"v": ` + list + "}"
			}
			dir := writeDir(t, map[string]string{"main.hcl": cfg, file: "\n" + val})
			_, diags := loadErrors(t, dir, VarInput{VarFiles: []string{filepath.Join(dir, file)}})
			wantNestingError(t, diags, file, 2)
		})
	}
	t.Run("templatefile", func(t *testing.T) {
		dir := writeDir(t, map[string]string{"main.hcl": withLocal(`templatefile("t.tpl", {})`), "t.tpl": "a\n${" + list + "}"})
		_, diags := loadErrors(t, dir, VarInput{})
		if len(diags) != 1 || !strings.Contains(diags[0].Detail, "template t.tpl, line 2: This expression is nested deeper than 256 levels") {
			t.Fatalf("diagnostics = %v", diags)
		}
	})
	t.Run("hook condition", func(t *testing.T) {
		hook := `hook "up" {
  on = "post-deploy"
  web {
    url = "http://10.0.0.1/"
  }
  success_condition = "` + strings.Repeat("(", deep) + "result" + strings.Repeat(")", deep) + `"
}
`
		_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": withLocal("1") + hook}), VarInput{})
		wantNestingError(t, diags, "main.hcl", 18)
	})
}

// Nesting up to the limit loads, and brackets that are text (in strings,
// heredocs and comments) do not count.
func TestNestingWithinTheLimit(t *testing.T) {
	n := maxNesting - 2 // the locals block and the labels' jsonencode() are two levels
	many := strings.Repeat("[", 5000)
	for name, expr := range map[string]string{
		"brackets":  strings.Repeat("[", n) + strings.Repeat("]", n),
		"additions": strings.Repeat("1+", n-1) + "1",
		"text":      `"` + many + `"`,
		"heredoc":   "<<EOT\n" + many + "\nEOT\n",
		"comment":   "1 # " + many,
	} {
		t.Run(name, func(t *testing.T) {
			mustLoad(t, writeDir(t, map[string]string{"main.hcl": withLocal(expr)}), VarInput{})
		})
	}
	dir := writeDir(t, map[string]string{"main.hcl": withLocal("1"), "v.json": `{"x": "` + many + `"}`})
	mustLoad(t, dir, VarInput{VarFiles: []string{filepath.Join(dir, "v.json")}})
}

// A JSON string's escaped quote does not end it.
func TestJSONNestingSkipsStrings(t *testing.T) {
	src := []byte(`{"a": "\"` + strings.Repeat("[", 1000) + `", "b": [[1]]}`)
	if d := checkJSONNesting(src, "v.json"); d.HasErrors() {
		t.Fatal(d)
	}
	src = []byte("{\n\"a\": " + strings.Repeat("[", maxNesting) + "}")
	if d := checkJSONNesting(src, "v.json"); !d.HasErrors() || d[0].Subject.Start.Line != 2 {
		t.Fatalf("diagnostics = %v", d)
	}
}

// A number of a million digits took HCL's parser seconds (n²): more than
// maxNumberLen characters is an error at the number.
func TestLongNumbers(t *testing.T) {
	long := strings.Repeat("9", 1<<20)
	_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": withLocal(long)}), VarInput{})
	if len(diags) != 1 || diags[0].Summary != "Number too long" || diags[0].Subject.Start.Line != 3 {
		t.Fatalf("diagnostics = %v", diags)
	}
	dir := writeDir(t, map[string]string{"main.hcl": withLocal("1"), "v.json": "{\n\"v\": " + long + "}"})
	_, diags = loadErrors(t, dir, VarInput{VarFiles: []string{filepath.Join(dir, "v.json")}})
	if len(diags) != 1 || diags[0].Summary != "Number too long" || diags[0].Subject.Start.Line != 2 {
		t.Fatalf("diagnostics = %v", diags)
	}
	mustLoad(t, writeDir(t, map[string]string{"main.hcl": withLocal("1234567890.5e3")}), VarInput{})
}

// try(try(…, 2), 2) 40 deep: HCL's try evaluated each argument twice (for
// the type, then the value), 2^40 evaluations; eggo's evaluates once.
func TestNestedTryIsLinear(t *testing.T) {
	expr := strings.Repeat("try(", 40) + "local.y" + strings.Repeat(", 2)", 40)
	cfg := mustLoad(t, writeDir(t, map[string]string{"main.hcl": withLocal(expr)}), VarInput{})
	if got := cfg.Cluster.Labels["x"]; got != "1" {
		t.Errorf("label x = %q, want 1", got)
	}
	expr = `try(local.y.here, "fallback")`
	cfg = mustLoad(t, writeDir(t, map[string]string{"main.hcl": withLocal(expr)}), VarInput{})
	if got := cfg.Cluster.Labels["x"]; got != `"fallback"` {
		t.Errorf("label x = %q, want \"fallback\"", got)
	}
}
