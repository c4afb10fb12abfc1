// Package shelltest proves, with a real shell parser, that values reached
// a shell command line as data: each one inside a single word, never as
// syntax. Only tests import it: the quoting audits of the kinds and hooks
// (resources/kinds, resources/hook) and of the transports' own command
// lines (providers).
package shelltest

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Payload is what a hostile value carries after its tag: every character a
// shell treats as syntax — quotes of both kinds, a command substitution in
// both spellings, a separator, a pipe, a background, redirections, a glob,
// a comment, a variable and a backslash — and spaces that would split it.
// Each would-be command touches eggo-pwned: were one ever run on a real
// host, the file says so. It holds no slash, so a value can be a file name.
const Payload = ` it's "x" $(touch eggo-pwned) ` + "`touch eggo-pwned`" +
	` ;touch eggo-pwned | cat & wait >o <i * ? [a] $HOME \ # end`

// Hostile is a hostile value whose tag is tag: the tag, then Payload. The
// tag must be unique among the values of one audit, and not a prefix of
// another tag (use a fixed width: "H01", "H02" …).
func Hostile(tag string) string { return tag + Payload }

// Check parses script as a POSIX shell would and returns what is wrong:
// each occurrence of a value's tag must start that whole value inside one
// word, as literal text. A value split into several words, cut short by a
// separator or a comment, opened into a substitution, or found anywhere
// but a word (a comment, a function name) is a problem. The script of an
// `sh -c SCRIPT` or `bash -c SCRIPT` is checked in turn, as that shell
// would parse it. found counts, per tag, the values seen intact.
func Check(script string, values map[string]string, found map[string]int) []string {
	return check(script, syntax.LangPOSIX, values, found, 0)
}

func check(script string, lang syntax.LangVariant, values map[string]string, found map[string]int, depth int) []string {
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(script), "")
	if err != nil {
		return []string{fmt.Sprintf("does not parse (%v):\n%s", err, script)}
	}
	var problems []string
	inWords := map[string]int{}
	// Here-documents are read by heredocText, not wordText; the SCRIPT of
	// sh -c holds values in their quoted form and is checked as a script.
	skip := map[*syntax.Word]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			if n.Hdoc != nil {
				skip[n.Hdoc] = true
				problems = append(problems, checkText(heredocText(n), values, found, inWords)...)
			}
		case *syntax.Word:
			if !skip[n] {
				problems = append(problems, checkText(wordText(n), values, found, inWords)...)
			}
		case *syntax.CallExpr:
			if w, lang, ok := shellScript(n); ok && depth < 4 {
				skip[w] = true
				inner := wordText(w)
				for tag := range values {
					inWords[tag] += strings.Count(inner, tag)
				}
				problems = append(problems, check(inner, lang, values, found, depth+1)...)
			}
		}
		return true
	})
	for tag := range values {
		if raw := strings.Count(script, tag); raw > inWords[tag] {
			problems = append(problems, fmt.Sprintf("value %s appears %d times, only %d in words: the rest is syntax (a comment, a name):\n%s", tag, raw, inWords[tag], script))
		}
	}
	return problems
}

// checkText checks the literal text of one word (or heredoc body).
func checkText(text string, values map[string]string, found, inWords map[string]int) []string {
	var problems []string
	for tag, v := range values {
		for rest := text; ; {
			i := strings.Index(rest, tag)
			if i < 0 {
				break
			}
			rest = rest[i:]
			inWords[tag]++
			if !strings.HasPrefix(rest, v) {
				problems = append(problems, fmt.Sprintf("value %s is not one literal word here: %q", tag, text))
			} else {
				found[tag]++
			}
			rest = rest[len(tag):]
		}
	}
	return problems
}

// shellScript is the word SCRIPT of `sh -c SCRIPT …` or `bash -c SCRIPT
// …` when it is literal.
func shellScript(c *syntax.CallExpr) (*syntax.Word, syntax.LangVariant, bool) {
	if len(c.Args) < 3 {
		return nil, 0, false
	}
	prog := c.Args[0].Lit()
	lang := syntax.LangPOSIX
	switch prog {
	case "sh", "/bin/sh":
	case "bash", "/bin/bash":
		lang = syntax.LangBash
	default:
		return nil, 0, false
	}
	for i := 1; i+1 < len(c.Args); i++ {
		if wordText(c.Args[i]) == "-c" {
			w := c.Args[i+1]
			return w, lang, !strings.Contains(wordText(w), nonLiteral)
		}
	}
	return nil, 0, false
}
