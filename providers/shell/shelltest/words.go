package shelltest

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// nonLiteral stands for a part of a word the shell computes when it runs
// (a variable, a substitution): no value can be whole across it.
const nonLiteral = "\x00"

// wordText is the text a word stands for once its quotes and escapes are
// removed, with nonLiteral for every computed part.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		partText(&b, p, false)
	}
	return b.String()
}

func partText(b *strings.Builder, p syntax.WordPart, dquoted bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		if dquoted {
			b.WriteString(unescape(p.Value, "$`\"\\\n"))
		} else {
			b.WriteString(unescape(p.Value, ""))
		}
	case *syntax.SglQuoted:
		if p.Dollar { // $'…' (bash): escapes this package does not read
			b.WriteString(nonLiteral)
			return
		}
		b.WriteString(p.Value)
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			partText(b, q, true)
		}
	default:
		b.WriteString(nonLiteral)
	}
}

// unescape removes the backslashes the shell removes: before any character
// outside quotes (special ""), before one of special inside double quotes
// or an unquoted here-document. A backslash-newline disappears.
func unescape(s, special string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		next := s[i+1]
		switch {
		case next == '\n':
			i++
		case special == "" || strings.IndexByte(special, next) >= 0:
			b.WriteByte(next)
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// heredocText is a here-document's body as the command reads it: verbatim
// when its delimiter is quoted, else with the escapes of double quotes
// (but for the quote itself) and nonLiteral for what is expanded.
func heredocText(r *syntax.Redirect) string {
	quoted := false
	for _, p := range r.Word.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		case *syntax.Lit:
			quoted = quoted || strings.Contains(p.Value, `\`)
		}
	}
	var b strings.Builder
	for _, p := range r.Hdoc.Parts {
		lit, ok := p.(*syntax.Lit)
		switch {
		case ok && quoted:
			b.WriteString(lit.Value)
		case ok:
			b.WriteString(unescape(lit.Value, "$`\\\n"))
		default:
			b.WriteString(nonLiteral)
		}
	}
	return b.String()
}
