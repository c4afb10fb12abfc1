package config

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
)

// maxEcho is how much of a value a message repeats: enough to recognise
// it, never the megabytes a mistaken file() or a hostile variable holds.
const maxEcho = 100

// hiddenValue stands for a value no message repeats: one that holds a
// credential (credentials.go), as a sensitive one is shown.
const hiddenValue = "(sensitive value)"

// quoted is how a message shows a value the user gave: quoted, and when
// it is longer than maxEcho bytes, its start and its length:
// "aaaa…"…(70000 bytes). A credential is not shown at all.
func quoted(s string) string {
	if secretKind(s) != "" {
		return hiddenValue
	}
	if len(s) <= maxEcho {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:runeCut(s, maxEcho)]) + lengthNote(len(s))
}

// clip is quoted for text shown as it is (a number's digits).
func clip(s string) string {
	if secretKind(s) != "" {
		return hiddenValue
	}
	if len(s) <= maxEcho {
		return s
	}
	return s[:runeCut(s, maxEcho)] + lengthNote(len(s))
}

// clipPath is clip for a path, which may be longer than a value and
// still be right: it is cut at longQuote bytes.
func clipPath(p string) string {
	if len(p) <= longQuote {
		return p
	}
	return p[:runeCut(p, longQuote)] + lengthNote(len(p))
}

func lengthNote(n int) string { return fmt.Sprintf("…(%d bytes)", n) }

// runeCut is the largest n' <= n that does not split a UTF-8 sequence of
// s; n < len(s).
func runeCut[T ~string | ~[]byte](s T, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// Limits of capDiagnostics: HCL's and go-cty's own messages quote names
// and values in full ("An argument named "…" is not expected here").
const (
	longQuote = 256   // a quoted run longer than this is cut to maxEcho
	maxDetail = 16384 // and a detail longer than this is cut
)

// capDiagnostics bounds what the messages of diags repeat (the ones eggo
// writes use quoted already): each quoted run of more than longQuote
// bytes is cut to maxEcho bytes and its length, a quoted credential is
// hidden, and a summary or detail still too long is cut. A message that
// still holds a credential outside quotes is not shown. It edits diags
// in place.
func capDiagnostics(diags hcl.Diagnostics) hcl.Diagnostics {
	for _, d := range diags {
		d.Summary = capText(d.Summary, longQuote)
		d.Detail = capText(d.Detail, maxDetail)
	}
	return diags
}

func capText(s string, max int) string {
	secret := secretKind(s) != ""
	if len(s) <= longQuote && !secret {
		return s
	}
	s = capQuotes(s)
	if secret && secretKind(s) != "" {
		return "The message is not shown: it would repeat " + hiddenValue + "."
	}
	if len(s) > max {
		s = s[:runeCut(s, max)] + lengthNote(len(s))
	}
	return s
}

// capQuotes cuts each Go-quoted run of s ("…" as %q writes it) longer
// than longQuote bytes, and hides one that holds a credential.
func capQuotes(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := quoteEnd(s, i)
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		run := s[i : j+1]
		if text, err := strconv.Unquote(run); err == nil && (len(run) > longQuote || secretKind(text) != "") {
			run = quoted(text)
		}
		b.WriteString(s[:i])
		b.WriteString(run)
		s = s[j+1:]
	}
}

// quoteEnd is the index of the quote that ends the run s[i] opens, -1 if
// none does.
func quoteEnd(s string, i int) int {
	for k := i + 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case '"':
			return k
		}
	}
	return -1
}
