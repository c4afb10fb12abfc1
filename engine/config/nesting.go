package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// maxNesting bounds how deeply the text eggo parses may nest. HCL's parser
// and evaluator recurse a few Go calls per level of brackets, calls,
// templates or operators, without a limit of their own, and running out of
// Go's stack is a crash, not an error: 100000 "[" killed eggo. Hand-written
// configurations rarely nest ten levels and generated ones a few dozen;
// 256 leaves them room while the recursion stays a few megabytes of stack.
const maxNesting = 256

// nestingDetail explains a nesting error; the argument is what nests
// ("This expression", "This value").
const nestingDetail = "%s is nested deeper than %d levels (each bracket, brace, parenthesis, string template, " +
	"template if or for, and operator of a chain counts as one): no configuration needs that many, and reading it " +
	"would exhaust eggo's stack."

// checkNesting refuses src, in HCL's native syntax (a configuration file,
// a variables file, a -var value: config; a template file: template), when
// it nests deeper than maxNesting: before HCL's parser, which recurses,
// reads it. The check reads HCL's own tokens, which its scanner makes
// without recursion, so brackets inside strings, heredocs and comments do
// not count and those of ${ } interpolations do.
func checkNesting(src []byte, filename string, template bool) hcl.Diagnostics {
	lex := hclsyntax.LexConfig
	if template {
		lex = hclsyntax.LexTemplate
	}
	tokens, _ := lex(src, filename, hcl.InitialPos) // lexical errors are the parser's to report
	rng, number, ok := tooDeep(tokens)
	switch {
	case !ok:
		return nil
	case number:
		return hcl.Diagnostics{diagf(rng, "Number too long", numberDetail, maxNumberLen)}
	}
	return hcl.Diagnostics{diagf(rng, "Nesting too deep", nestingDetail+" Split it with locals.", "This expression", maxNesting)}
}

// maxNumberLen bounds a number as written: HCL's parser reads one of n
// digits in time n², a second for a million, and no setting needs more
// than a handful.
const maxNumberLen = 100

const numberDetail = "This number is written with more than %d characters, which no setting needs; a number that long is a mistake."

// nestFrame is one open level: a bracket, brace, parenthesis, string,
// heredoc, interpolation or template directive, or the if or for block of
// a template (close 0). A level holds chains of terms joined by operators,
// ended by a comma or "=" or "=>": a chain of n operators makes a tree n
// deep (a+b+c is (a+b)+c, !!!x is !(!(!x)), a ? b : c ? d : e nests in
// its last part), so each operator counts as a level too.
type nestFrame struct {
	close hclsyntax.TokenType
	open  hcl.Range
	ops   int // operators so far in the current chain
	inner int // the deepest level closed in the current chain
	best  int // the deepest chain ended in this level
}

func (f *nestFrame) endChain() {
	f.best = max(f.best, f.ops+f.inner)
	f.ops, f.inner = 0, 0
}

// depth is how deep the level is, counting itself.
func (f *nestFrame) depth() int { return 1 + max(f.best, f.ops+f.inner) }

var nestOpeners = map[hclsyntax.TokenType]hclsyntax.TokenType{
	hclsyntax.TokenOBrace:          hclsyntax.TokenCBrace,
	hclsyntax.TokenOBrack:          hclsyntax.TokenCBrack,
	hclsyntax.TokenOParen:          hclsyntax.TokenCParen,
	hclsyntax.TokenOQuote:          hclsyntax.TokenCQuote,
	hclsyntax.TokenOHeredoc:        hclsyntax.TokenCHeredoc,
	hclsyntax.TokenTemplateInterp:  hclsyntax.TokenTemplateSeqEnd,
	hclsyntax.TokenTemplateControl: hclsyntax.TokenTemplateSeqEnd,
}

func isNestOperator(t hclsyntax.TokenType) bool {
	switch t {
	case hclsyntax.TokenStar, hclsyntax.TokenSlash, hclsyntax.TokenPlus, hclsyntax.TokenMinus, hclsyntax.TokenPercent,
		hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual, hclsyntax.TokenLessThan, hclsyntax.TokenLessThanEq,
		hclsyntax.TokenGreaterThan, hclsyntax.TokenGreaterThanEq, hclsyntax.TokenAnd, hclsyntax.TokenOr,
		hclsyntax.TokenBang, hclsyntax.TokenQuestion:
		return true
	}
	return false
}

// endsTerm says whether a "[" after t indexes what t ends (x[i][j] nests
// like an operator chain) rather than starting a tuple.
func endsTerm(t hclsyntax.TokenType) bool {
	switch t {
	case hclsyntax.TokenIdent, hclsyntax.TokenNumberLit, hclsyntax.TokenCBrack, hclsyntax.TokenCParen,
		hclsyntax.TokenCBrace, hclsyntax.TokenCQuote, hclsyntax.TokenCHeredoc:
		return true
	}
	return false
}

// nestScan walks tokens with an explicit stack of levels.
type nestScan struct {
	stack  []nestFrame
	bad    hcl.Range
	found  bool
	number bool // what was found is a number longer than maxNumberLen
}

// tooDeep returns where tokens first nest deeper than maxNesting, or
// hold a number longer than maxNumberLen (number).
func tooDeep(tokens hclsyntax.Tokens) (rng hcl.Range, number, found bool) {
	s := &nestScan{stack: []nestFrame{{}}}
	prev := hclsyntax.TokenNil
	for i := 0; i < len(tokens) && !s.found; i++ {
		tok := tokens[i]
		switch t := tok.Type; {
		case nestOpeners[t] != 0:
			if t == hclsyntax.TokenOBrack && endsTerm(prev) {
				s.operator(tok.Range)
			}
			s.open(tokens, i)
		case t == hclsyntax.TokenCBrace || t == hclsyntax.TokenCBrack || t == hclsyntax.TokenCParen ||
			t == hclsyntax.TokenCQuote || t == hclsyntax.TokenCHeredoc || t == hclsyntax.TokenTemplateSeqEnd:
			s.close(t)
		case isNestOperator(t):
			s.operator(tok.Range)
		case t == hclsyntax.TokenComma || t == hclsyntax.TokenEqual || t == hclsyntax.TokenFatArrow:
			s.top().endChain()
		case t == hclsyntax.TokenNumberLit && len(tok.Bytes) > maxNumberLen:
			s.fail(tok.Range)
			s.number = true
		}
		if tok.Type != hclsyntax.TokenComment && tok.Type != hclsyntax.TokenNewline {
			prev = tok.Type
		}
	}
	return s.bad, s.number, s.found
}

func (s *nestScan) top() *nestFrame { return &s.stack[len(s.stack)-1] }

func (s *nestScan) fail(rng hcl.Range) {
	if !s.found {
		s.bad, s.found = rng, true
	}
}

func (s *nestScan) operator(rng hcl.Range) {
	f := s.top()
	f.ops++
	if len(s.stack)-1+f.ops+f.inner > maxNesting {
		s.fail(rng)
	}
}

// open pushes the level tokens[i] opens. A template's %{if} and %{for}
// open a block that its %{endif} or %{endfor} closes, inside the string.
func (s *nestScan) open(tokens hclsyntax.Tokens, i int) {
	tok := tokens[i]
	if tok.Type == hclsyntax.TokenTemplateControl && i+1 < len(tokens) && tokens[i+1].Type == hclsyntax.TokenIdent {
		switch string(tokens[i+1].Bytes) {
		case "if", "for":
			s.push(0, tok.Range)
		case "endif", "endfor":
			s.closeBlock()
		}
	}
	s.push(nestOpeners[tok.Type], tok.Range)
}

func (s *nestScan) push(close hclsyntax.TokenType, rng hcl.Range) {
	s.stack = append(s.stack, nestFrame{close: close, open: rng})
	if len(s.stack)-1 > maxNesting {
		s.fail(rng)
	}
}

// close pops the innermost level that t closes and every level above it
// (which a mistake left open: the parser reports that). A closer nothing
// opened is left to the parser.
func (s *nestScan) close(t hclsyntax.TokenType) {
	for j := len(s.stack) - 1; j > 0; j-- {
		if s.stack[j].close == t {
			for len(s.stack) > j {
				s.pop()
			}
			return
		}
	}
}

// closeBlock ends the template block an %{endif} or %{endfor} closes.
func (s *nestScan) closeBlock() {
	if len(s.stack) > 1 && s.top().close == 0 {
		s.pop()
	}
}

func (s *nestScan) pop() {
	f := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	parent := s.top()
	parent.inner = max(parent.inner, f.depth())
	if len(s.stack)-1+parent.ops+parent.inner > maxNesting {
		s.fail(f.open)
	}
}

// checkJSONNesting is checkNesting for a JSON variables file, whose parser
// recurses per level of [ and { as HCL's does, and reads numbers as slowly.
func checkJSONNesting(src []byte, filename string) hcl.Diagnostics {
	depth, line, lineStart, digits := 0, 1, 0, 0
	inString, escaped := false, false
	at := func(i int) hcl.Range {
		pos := hcl.Pos{Line: line, Column: i - lineStart + 1, Byte: i}
		return hcl.Range{Filename: filename, Start: pos, End: hcl.Pos{Line: line, Column: pos.Column + 1, Byte: i + 1}}
	}
	for i, c := range src {
		if !inString && (c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+') {
			if digits++; digits > maxNumberLen {
				return hcl.Diagnostics{diagf(at(i-digits+1), "Number too long", numberDetail, maxNumberLen)}
			}
		} else {
			digits = 0
		}
		switch {
		case c == '\n':
			line, lineStart = line+1, i+1
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			if depth > maxNesting {
				return hcl.Diagnostics{diagf(at(i), "Nesting too deep", nestingDetail, "This value", maxNesting)}
			}
		case c == ']' || c == '}':
			depth = max(depth-1, 0)
		}
	}
	return nil
}

// nestingError is checkNesting for text that is not a file of its own (a
// template file read by templatefile, a hook's condition): an error
// naming what and the line.
func nestingError(what string, src []byte, template bool) error {
	d := checkNesting(src, what, template)
	if !d.HasErrors() {
		return nil
	}
	detail := strings.TrimSuffix(strings.TrimSuffix(d[0].Detail, " Split it with locals."), ".")
	return fmt.Errorf("%s, line %d: %s", what, d[0].Subject.Start.Line, detail)
}
