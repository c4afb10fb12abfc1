package state

import (
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// The writer's strings and numbers, byte for byte as encoding/json writes
// them.

// appendFloat formats f exactly as encoding/json does, so that files
// written before and after this writer existed agree.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 → 1e-7, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// unescapedRun is the index of the first byte of s from i on that is not
// printable ASCII other than a quote or backslash (len(s) if none): the
// bytes before it are copied as they are. It tests 8 bytes at a time
// (https://graphics.stanford.edu/~seander/bithacks.html#HasLessInWord:
// each test sets the high bit of the first byte that matches, and of no
// byte before it): appendString, a third of the encoding's time, went a
// byte at a time through the long strings a state holds: certificates,
// kubeconfigs, unit files.
func unescapedRun(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		less := (x - ones*0x20) & ^x // a byte below 0x20: a control character
		if m := (less | zeroByte(x^(ones*'"')) | zeroByte(x^(ones*'\\')) | x) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// zeroByte has a high bit set when a byte of x is 0.
func zeroByte(x uint64) uint64 { return (x - ones) & ^x }

// appendString quotes s exactly as encoding/json does with HTML escaping
// off: control characters, quote and backslash escaped, invalid UTF-8
// replaced by U+FFFD, U+2028 and U+2029 escaped (JavaScript line breaks).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i = unescapedRun(s, i); i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
