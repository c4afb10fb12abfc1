package command

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/resources"
)

// TestDiffLinesReconstructs checks on random texts that the kept and removed
// lines give back the old text and the kept and added lines the new one,
// and that no more lines change than the texts' difference needs.
func TestDiffLinesReconstructs(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	text := func() []string {
		n := rng.Intn(12)
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('a' + rng.Intn(4)))
		}
		return out
	}
	for i := 0; i < 500; i++ {
		a, b := text(), text()
		ops := diffLines(a, b)
		var old, new []string
		kept := 0
		for _, op := range ops {
			switch op.kind {
			case ' ':
				old, new = append(old, op.text), append(new, op.text)
				kept++
			case '-':
				old = append(old, op.text)
			case '+':
				new = append(new, op.text)
			}
		}
		if !reflect.DeepEqual(old, a) && len(a)+len(old) > 0 || !reflect.DeepEqual(new, b) && len(b)+len(new) > 0 {
			t.Fatalf("diff of %q and %q = %v does not rebuild them", a, b, ops)
		}
		if want := lcsLen(a, b); kept != want {
			t.Fatalf("diff of %q and %q keeps %d lines, the longest common subsequence has %d", a, b, kept, want)
		}
	}
}

func lcsLen(a, b []string) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if a[0] == b[0] {
		return 1 + lcsLen(a[1:], b[1:])
	}
	return max(lcsLen(a[1:], b), lcsLen(a, b[1:]))
}

func TestElideUnchanged(t *testing.T) {
	var ops []lineOp
	for i := 0; i < 20; i++ {
		ops = append(ops, lineOp{' ', "same"})
	}
	ops[10] = lineOp{'+', "new"}
	got := elideUnchanged(ops, 3)
	kinds := ""
	for _, op := range got {
		kinds += string(op.kind)
	}
	if kinds != "#   +   #" || got[0].text != "# (7 unchanged lines hidden)" || got[8].text != "# (6 unchanged lines hidden)" {
		t.Fatalf("elided = %q", got)
	}
	// One hidden line would cost as much as its note: it stays.
	short := []lineOp{{' ', "x"}, {' ', "y"}, {'-', "z"}}
	if got := elideUnchanged(short, 1); !reflect.DeepEqual(got, short) {
		t.Fatalf("elided = %q, want it unchanged", got)
	}
}

// TestTextRenderingFallsBack checks the strings that must stay quoted: a
// terminal escape or carriage return inside, and changes that only a quoted
// value shows (a final newline).
func TestTextRenderingFallsBack(t *testing.T) {
	for _, s := range []string{"one line", "a\r\nb\r\n", "a\n\x1b[31mred\n"} {
		if got := renderValue(s, "      "); strings.Contains(got, "<<-") {
			t.Errorf("renderValue(%q) = %s, want a quoted string", s, got)
		}
	}
	p := &engine.Plan{Steps: []*engine.Step{
		step("service.a", resources.Update, resources.Attrs{"unit": "a\nb"}, resources.Attrs{"unit": "a\nb\n"}),
		step("service.b", resources.Delete, resources.Attrs{"unit": "x\ny\n"}, nil),
	}}
	var b strings.Builder
	renderPlan(&b, p, colorizer(false))
	mustContain(t, "plan", b.String(),
		`~ unit = "a\nb" -> "a\nb\n"`,
		"      - unit = <<-EOT\n            x\n            y\n        EOT\n")
}
