package state

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// appendString tests 8 bytes at a time: every byte JSON escapes, or that
// begins a multi-byte character, must stop it at every offset in a word.
func TestAppendStringWordAtATime(t *testing.T) {
	special := []byte{0, 0x1f, 0x20, '"', '\\', 0x7f, 0x80, 0xff, '<', '!', '#', '[', ']', '\n'}
	check := func(s string) {
		t.Helper()
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, s); !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want.Bytes())
		}
	}
	for n := range 20 {
		for at := range n {
			for _, c := range special {
				s := bytes.Repeat([]byte("a"), n)
				s[at] = c
				check(string(s))
			}
		}
	}
	for c := range 256 {
		check(string(bytes.Repeat([]byte{byte(c)}, 17)))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		s := make([]byte, r.IntN(40))
		for i := range s {
			s[i] = byte(r.IntN(256))
			if r.IntN(4) > 0 {
				s[i] = ' ' + byte(r.IntN(95))
			}
		}
		check(string(s) + "\u2028" + string(s) + "日本")
	}
}

// BenchmarkAppendString quotes a certificate-like string, as a state
// holds thousands of.
func BenchmarkAppendString(b *testing.B) {
	s := "-----BEGIN CERTIFICATE-----\n" + string(bytes.Repeat([]byte("MIIBszCCAVmgAwIBAgIUQ0xvY2FsIHRlc3QgY2VydGlmaWNhdGUgZm9yIGVnZ28w\n"), 12)) + "-----END CERTIFICATE-----\n"
	buf := make([]byte, 0, 2*len(s))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = appendString(buf[:0], s)
	}
}
