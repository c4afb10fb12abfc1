package text

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// Terminal safety. eggo prints text that other people wrote: a state's
// lineage and version, a lock's owner, what a hook printed on a node, a
// remote command's stderr inside an error. A terminal acts on control
// characters in it: an escape sequence can clear the screen, move the
// cursor over what eggo printed, or set the clipboard (OSC 52), and a
// carriage return overwrites a line. Every human-readable view passes such
// text through Safe or SafeLine before it adds its own colours.
//
// The rules, in Go's escape notation (as strconv.Quote writes it):
//   - newline and tab stay (Safe) or are escaped as \n and \t (SafeLine);
//   - every other C0 control and DEL is escaped: \a \b \f \r \v, the rest
//     as \xNN (ESC is \x1b, DEL \x7f);
//   - a C1 control (U+0080 to U+009F) is escaped as \u0080 to \u009f;
//   - a byte that is not UTF-8 is escaped as \xNN;
//   - everything else stays as it is: printable Unicode, and a backslash,
//     so a literal "\x1b" reads the same as an escaped ESC.

// Safe is s with the control characters a terminal would act on escaped;
// newlines and tabs stay, so multi-line text (a hook's output) reads as
// lines. It returns s itself when nothing needs escaping.
func Safe(s string) string { return safe(s, true) }

// SafeLine is Safe that escapes newlines and tabs too: for a value that
// must stay on its line or in its column (a lineage, a lock's owner, an
// address, a table's cell).
func SafeLine(s string) string { return safe(s, false) }

func safe(s string, keepLines bool) string {
	i := firstUnsafe(s, keepLines)
	if i < 0 {
		return s
	}
	return string(appendSafe(append(make([]byte, 0, len(s)+16), s[:i]...), s[i:], keepLines))
}

// AppendSafe appends Safe(s) to dst, or SafeLine(s) unless keepLines.
func AppendSafe(dst []byte, s string, keepLines bool) []byte {
	i := firstUnsafe(s, keepLines)
	if i < 0 {
		return append(dst, s...)
	}
	return appendSafe(append(dst, s[:i]...), s[i:], keepLines)
}

// IsSafe reports whether Safe (SafeLine unless keepLines) leaves s as it is.
func IsSafe(s string, keepLines bool) bool { return firstUnsafe(s, keepLines) < 0 }

// firstUnsafe is the index of the first byte of s that needs an escape,
// or -1.
func firstUnsafe(s string, keepLines bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if unsafeByte(c, keepLines) {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || isC1(r) {
			return i
		}
		i += n
	}
	return -1
}

func appendSafe(dst []byte, s string, keepLines bool) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if unsafeByte(c, keepLines) {
				dst = appendEscape(dst, rune(c))
			} else {
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, `\x`...)
			dst = append(dst, hex[c>>4], hex[c&0xf])
		case isC1(r):
			dst = appendEscape(dst, r)
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return dst
}

const hex = "0123456789abcdef"

func unsafeByte(c byte, keepLines bool) bool {
	if c == '\n' || c == '\t' {
		return !keepLines
	}
	return c < 0x20 || c == 0x7f
}

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// appendEscape appends r as strconv.QuoteRune escapes it, without the
// quotes: \x1b, \a, \u009b.
func appendEscape(dst []byte, r rune) []byte {
	q := strconv.AppendQuoteRune(dst, r)
	// q ends with dst, then 'escape'; drop the two quotes.
	copy(q[len(dst):], q[len(dst)+1:len(q)-1])
	return q[:len(q)-2]
}

// SafeWriter passes what is written to it through Safe: for a stream
// that carries other people's text and no colours of eggo's (the debug
// log). Each write is escaped on its own, so a writer should write whole
// lines, as a logger does: a character split across two writes would show
// as \xNN bytes.
type SafeWriter struct{ w io.Writer }

// NewSafeWriter writes to w through Safe.
func NewSafeWriter(w io.Writer) SafeWriter { return SafeWriter{w: w} }

func (s SafeWriter) Write(p []byte) (int, error) {
	if _, err := s.w.Write(AppendSafe(nil, string(p), true)); err != nil {
		return 0, err
	}
	return len(p), nil
}
