package config

import (
	"bytes"
	"io"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// WriteDiagnostics prints diagnostics with HCL's own writer: the message,
// the file and line, and the source snippet with the range underlined.
// files is Config.Files. A snippet shows at most maxSnippetLines lines of
// at most maxSnippetLine bytes each, and the values of the variables an
// expression uses only when they are short and hold no credential: a
// hostile file's one-megabyte line, or a megabyte variable, is not
// printed back.
func WriteDiagnostics(w io.Writer, files map[string][]byte, diags hcl.Diagnostics, color bool, width uint) error {
	hclFiles := make(map[string]*hcl.File, len(files))
	for name, src := range files {
		hclFiles[name] = &hcl.File{Bytes: src}
	}
	all := hcl.NewDiagnosticTextWriter(w, hclFiles, width, color)
	for _, d := range diags {
		if hasLongValue(d) {
			c := *d
			c.Expression, c.EvalContext = nil, nil
			d = &c
		}
		var err error
		short, src := hiddenSnippet(d, files)
		if short == nil {
			short, src = shortSnippet(d, files)
		}
		if short != nil {
			one := map[string]*hcl.File{short.Subject.Filename: {Bytes: src}}
			err = hcl.NewDiagnosticTextWriter(w, one, width, color).WriteDiagnostic(short)
		} else {
			err = all.WriteDiagnostic(d)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

const (
	maxSnippetLine  = 200
	maxSnippetLines = 20
)

// hasLongValue says whether d would show ("with var.x as "…"") a string
// longer than longQuote, or one that holds a credential.
func hasLongValue(d *hcl.Diagnostic) bool {
	if d.Expression == nil || d.EvalContext == nil {
		return false
	}
	for _, t := range d.Expression.Variables() {
		v, diags := t.TraverseAbs(d.EvalContext)
		if !diags.HasErrors() && v.IsKnown() && !v.IsNull() && !v.IsMarked() && v.Type() == cty.String &&
			(len(v.AsString()) > longQuote || secretKind(v.AsString()) != "") {
			return true
		}
	}
	return false
}

// subjectLines finds the lines of d's subject in its file: src[first:last]
// (src nil when d has no subject in files, or a range outside it).
func subjectLines(d *hcl.Diagnostic, files map[string][]byte) (src []byte, s hcl.Range, first, last int) {
	if d.Subject == nil || files[d.Subject.Filename] == nil {
		return nil, s, 0, 0
	}
	src, s = files[d.Subject.Filename], *d.Subject
	if s.Start.Line < 1 || s.Start.Byte < 0 || s.End.Byte > len(src) || s.Start.Byte > s.End.Byte {
		return nil, s, 0, 0
	}
	first = bytes.LastIndexByte(src[:s.Start.Byte], '\n') + 1
	last = len(src)
	if i := bytes.IndexByte(src[s.End.Byte:], '\n'); i >= 0 {
		last = s.End.Byte + i
	}
	return src, s, first, last
}

// hiddenSnippet returns, when the lines of d's subject hold a credential
// (a key written into the configuration), a copy of d and a stand-in for
// its file that shows "(sensitive value)" at the subject's first line:
// (nil, nil) when they hold none.
func hiddenSnippet(d *hcl.Diagnostic, files map[string][]byte) (*hcl.Diagnostic, []byte) {
	src, s, first, last := subjectLines(d, files)
	if src == nil {
		return nil, nil
	}
	if secretKind(string(src[first:last])) == "" {
		return nil, nil
	}
	b := append(bytes.Repeat([]byte{'\n'}, s.Start.Line-1), hiddenValue+"\n"...)
	start := len(b) - len(hiddenValue) - 1
	c := *d
	c.Context = nil
	c.Subject = &hcl.Range{Filename: s.Filename,
		Start: hcl.Pos{Line: s.Start.Line, Column: 1, Byte: start},
		End:   hcl.Pos{Line: s.Start.Line, Column: len(hiddenValue) + 1, Byte: start + len(hiddenValue)}}
	return &c, b
}

// shortSnippet returns, when d's snippet would be too long, a copy of d
// and a stand-in for its file that holds only the lines of its subject,
// cut, at the same line numbers: (nil, nil) when d is fine as it is.
func shortSnippet(d *hcl.Diagnostic, files map[string][]byte) (*hcl.Diagnostic, []byte) {
	src, s, first, last := subjectLines(d, files)
	if src == nil {
		return nil, nil
	}
	lines := bytes.Split(src[first:last], []byte{'\n'})
	long := len(lines) > maxSnippetLines
	for _, l := range lines {
		long = long || len(l) > maxSnippetLine
	}
	if !long {
		return nil, nil
	}
	var b bytes.Buffer
	b.Write(bytes.Repeat([]byte{'\n'}, s.Start.Line-1))
	start, end, ls := -1, -1, first // ls: where line l starts in src
	for _, l := range lines[:min(len(lines), maxSnippetLines)] {
		focus := -1
		if s.Start.Byte >= ls && s.Start.Byte <= ls+len(l) {
			focus = s.Start.Byte - ls
		}
		shown, at := cutLine(l, focus)
		off := b.Len()
		b.Write(shown)
		b.WriteByte('\n')
		if focus >= 0 {
			start = off + at(focus)
		}
		if end < 0 && s.End.Byte >= ls && s.End.Byte <= ls+len(l) {
			end = off + at(s.End.Byte-ls)
		}
		ls += len(l) + 1
	}
	if end < 0 { // past the lines shown
		end = b.Len() - 1
	}
	c := *d
	c.Context = nil
	c.Subject = &hcl.Range{Filename: s.Filename,
		Start: hcl.Pos{Line: s.Start.Line, Column: s.Start.Column, Byte: start},
		End:   hcl.Pos{Line: s.End.Line, Column: s.End.Column, Byte: max(end, start)}}
	return &c, b.Bytes()
}

// cutLine is l cut to maxSnippetLine bytes around byte focus (-1: from its
// start), marked "…" where it was cut, and where a byte offset of l lands
// in the result.
func cutLine(l []byte, focus int) ([]byte, func(int) int) {
	if len(l) <= maxSnippetLine {
		return l, func(i int) int { return i }
	}
	from := 0
	if focus > maxSnippetLine/2 {
		from = runeCut(l, focus-maxSnippetLine/4)
	}
	to := from + maxSnippetLine
	if to < len(l) {
		to = runeCut(l, to)
	} else {
		to = len(l)
	}
	var out []byte
	if from > 0 {
		out = append(out, "…"...)
	}
	prefix := len(out)
	out = append(out, l[from:to]...)
	if to < len(l) {
		out = append(out, lengthNote(len(l))...)
	}
	return out, func(i int) int { return prefix + min(max(i-from, 0), to-from) }
}
