package text

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSafe(t *testing.T) {
	for _, tc := range []struct{ name, in, safe, line string }{
		{"plain", "abc 123 ~!", "abc 123 ~!", "abc 123 ~!"},
		{"lines and tabs", "a\tb\nc\n", "a\tb\nc\n", `a\tb\nc\n`},
		{"OSC 52 and BEL", "\x1b]52;c;QUJD\x07", `\x1b]52;c;QUJD\a`, `\x1b]52;c;QUJD\a`},
		{"clear screen", "x\x1b[2Jy", `x\x1b[2Jy`, `x\x1b[2Jy`},
		{"carriage return", "ok\rFAILED", `ok\rFAILED`, `ok\rFAILED`},
		{"other C0 and DEL", "\x00\x08\x0b\x0c\x1f\x7f", `\x00\b\v\f\x1f\x7f`, `\x00\b\v\f\x1f\x7f`},
		{"C1", "a\u009b2Jb\u0080\u009f", `a\u009b2Jb\u0080\u009f`, `a\u009b2Jb\u0080\u009f`},
		{"invalid UTF-8", "a\x9b\xffb\xe2\x82", `a\x9b\xffb\xe2\x82`, `a\x9b\xffb\xe2\x82`},
		{"multi-byte Unicode kept", "é → 日本 🙂 \u00a0\u00ff", "é → 日本 🙂 \u00a0\u00ff", "é → 日本 🙂 \u00a0\u00ff"},
		{"backslash kept", `C:\x1b`, `C:\x1b`, `C:\x1b`},
		{"empty", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Safe(tc.in); got != tc.safe {
				t.Errorf("Safe(%q) = %q, want %q", tc.in, got, tc.safe)
			}
			if got := SafeLine(tc.in); got != tc.line {
				t.Errorf("SafeLine(%q) = %q, want %q", tc.in, got, tc.line)
			}
			if got := string(AppendSafe([]byte(">"), tc.in, true)); got != ">"+tc.safe {
				t.Errorf("AppendSafe(%q) = %q, want %q", tc.in, got, ">"+tc.safe)
			}
			if IsSafe(tc.in, true) != (tc.in == tc.safe) {
				t.Errorf("IsSafe(%q) = %v", tc.in, !(tc.in == tc.safe))
			}
			for _, out := range []string{Safe(tc.in), SafeLine(tc.in)} {
				if bad := unsafeIn(out); bad != "" {
					t.Errorf("%q still holds %s", out, bad)
				}
			}
		})
	}
}

// unsafeIn names a character a terminal acts on left in s, or "".
func unsafeIn(s string) string {
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
			return "a control character"
		}
	}
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	return ""
}

func TestSafeReturnsCleanTextAsItIs(t *testing.T) {
	s := strings.Repeat("a clean line\n", 10)
	if allocs := testing.AllocsPerRun(100, func() { _ = Safe(s) }); allocs != 0 {
		t.Errorf("Safe of clean text allocated %v times", allocs)
	}
}

func TestSafeWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewSafeWriter(&b)
	in := "log \x1b[2J\nline two\x07\n"
	if n, err := w.Write([]byte(in)); err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got, want := b.String(), "log \\x1b[2J\nline two\\a\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

func FuzzSafe(f *testing.F) {
	for _, s := range []string{"", "a\x1b[2J", "\xff\xfe", "é\u009b", "\r\n\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Safe(s), SafeLine(s)} {
			if bad := unsafeIn(out); bad != "" {
				t.Fatalf("%q escaped as %q still holds %s", s, out, bad)
			}
		}
		if strings.ContainsAny(SafeLine(s), "\n\t") {
			t.Fatalf("SafeLine(%q) kept a newline or tab", s)
		}
	})
}
