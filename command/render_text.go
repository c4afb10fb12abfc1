package command

import (
	"fmt"
	"strings"

	"github.com/eggo-project/eggo/internal/text"
)

// Multi-line strings (systemd units, scripts) render as HCL heredocs, so they
// read as the file they are instead of one long escaped line; a change to one
// renders as a line diff, so one changed flag in a unit shows as one line.

// textContext is how many unchanged lines a text diff keeps around a change.
const textContext = 3

// plainLines splits any string without control characters into lines; the
// empty string has none.
func plainLines(s string) ([]string, bool) {
	if !plainText(s) {
		return nil, false
	}
	if s == "" {
		return nil, true
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n"), true
}

// heredocMarker picks a delimiter that is not a line of the text.
func heredocMarker(texts ...[]string) string {
	marker := "EOT"
	for {
		clash := false
		for _, lines := range texts {
			for _, l := range lines {
				if strings.TrimSpace(l) == marker {
					clash = true
				}
			}
		}
		if !clash {
			return marker
		}
		marker += "_"
	}
}

// appendHeredoc appends s as <<-EOT … EOT for an attribute whose symbol
// column is indent: the text goes six columns in, the closing marker two,
// as Terraform lays it out. It declines (false) what textLines refuses.
func appendHeredoc(dst []byte, s, indent string) ([]byte, bool) {
	if !strings.Contains(s, "\n") || !plainText(s) {
		return dst, false
	}
	body := strings.TrimSuffix(s, "\n")
	marker := "EOT"
	for hasLine(body, marker) {
		marker += "_"
	}
	dst = append(append(append(dst, "<<-"...), marker...), '\n')
	for rest, more := body, true; more; {
		var line string
		line, rest, more = strings.Cut(rest, "\n")
		if line != "" {
			dst = append(append(append(dst, indent...), "      "...), line...)
		}
		dst = append(dst, '\n')
	}
	return append(append(append(dst, indent...), "  "...), marker...), true
}

// plainText reports whether s is valid UTF-8 with no control character
// but newline and tab (C0, DEL and C1 alike, see text.Safe): text a
// terminal would act on, or that would hide in a heredoc (\r), is quoted
// instead, and the quoting escapes it.
func plainText(s string) bool { return text.IsSafe(s, true) }

// hasLine reports whether a line of text, trimmed, is marker.
func hasLine(text, marker string) bool {
	for rest, more := text, true; more; {
		var line string
		line, rest, more = strings.Cut(rest, "\n")
		if strings.TrimSpace(line) == marker {
			return true
		}
	}
	return false
}

// writeTextLine writes one line of text under prefix, without trailing
// blanks for an empty line.
func writeTextLine(b *strings.Builder, prefix, line string) {
	if line == "" {
		b.WriteString("\n")
		return
	}
	b.WriteString(prefix + line + "\n")
}

// renderTextDiff writes `~ name = <<-EOT` with the lines removed (-) and
// added (+) between before and after, keeping a few unchanged lines around
// each change. It declines (false) unless both are strings, one of them
// multi-line, and the difference shows in their lines.
func renderTextDiff(b *strings.Builder, name string, w int, before, after any, col colorizer) bool {
	bs, okb := before.(string)
	as, oka := after.(string)
	if !okb || !oka {
		return false
	}
	if !strings.Contains(bs, "\n") && !strings.Contains(as, "\n") {
		return false
	}
	bl, okb := plainLines(bs)
	al, oka := plainLines(as)
	if !okb || !oka {
		return false
	}
	ops := diffLines(bl, al)
	if !hasLineChange(ops) {
		// Only a final newline differs: quoted values show that, lines do not.
		return false
	}
	marker := heredocMarker(bl, al)
	fmt.Fprintf(b, "      %s %-*s = <<-%s\n", col.c(yellow, "~"), w, name, marker)
	for _, op := range elideUnchanged(ops, textContext) {
		switch op.kind {
		case '-':
			b.WriteString("          " + col.c(red, "-") + " " + op.text + "\n")
		case '+':
			b.WriteString("          " + col.c(green, "+") + " " + op.text + "\n")
		case '#':
			b.WriteString("            " + op.text + "\n")
		default:
			writeTextLine(b, "            ", op.text)
		}
	}
	b.WriteString("        " + marker + "\n")
	return true
}

// lineOp is one line of a text diff: kind ' ' kept, '-' removed, '+' added,
// '#' a note standing for hidden unchanged lines.
type lineOp struct {
	kind byte
	text string
}

func hasLineChange(ops []lineOp) bool {
	for _, op := range ops {
		if op.kind != ' ' {
			return true
		}
	}
	return false
}

// maxDiffCells bounds the longest-common-subsequence table; texts beyond it
// (far larger than any unit file) diff as all removed, then all added.
const maxDiffCells = 4 << 20

// diffLines is a line diff by longest common subsequence: removals come
// before the additions that replace them, as people read a change.
func diffLines(a, b []string) []lineOp {
	// Common head and tail need no table; a unit diff is usually just those.
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	var ops []lineOp
	for _, l := range a[:head] {
		ops = append(ops, lineOp{' ', l})
	}
	ops = append(ops, diffMiddle(a[head:len(a)-tail], b[head:len(b)-tail])...)
	for _, l := range a[len(a)-tail:] {
		ops = append(ops, lineOp{' ', l})
	}
	return ops
}

func diffMiddle(a, b []string) []lineOp {
	var ops []lineOp
	if (len(a)+1)*(len(b)+1) > maxDiffCells {
		for _, l := range a {
			ops = append(ops, lineOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, lineOp{'+', l})
		}
		return ops
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:], b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, lineOp{' ', a[i]})
			i++
			j++
		case j == len(b) || (i < len(a) && lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, lineOp{'-', a[i]})
			i++
		default:
			ops = append(ops, lineOp{'+', b[j]})
			j++
		}
	}
	return ops
}

// elideUnchanged keeps context unchanged lines on each side of a change and
// replaces longer unchanged runs with a note of how many lines it hides.
func elideUnchanged(ops []lineOp, context int) []lineOp {
	keep := make([]bool, len(ops))
	for i, op := range ops {
		if op.kind == ' ' {
			continue
		}
		for k := max(0, i-context); k <= min(len(ops)-1, i+context); k++ {
			keep[k] = true
		}
	}
	var out []lineOp
	for i := 0; i < len(ops); {
		if keep[i] {
			out = append(out, ops[i])
			i++
			continue
		}
		j := i
		for j < len(ops) && !keep[j] {
			j++
		}
		if j-i == 1 {
			// A note would take the line it hides.
			out = append(out, ops[i])
		} else {
			out = append(out, lineOp{'#', fmt.Sprintf("# (%d unchanged lines hidden)", j-i)})
		}
		i = j
	}
	return out
}
