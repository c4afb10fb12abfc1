package resources

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"github.com/eggo-project/eggo/internal/recent"
)

// Readers of single attribute values as they come back from the state
// (JSON: numbers are float64, lists []any), and the digest kinds record.

// AttrString is v if it is a string, else "": attributes read back from
// state are untyped, and a missing one reads as its zero value.
func AttrString(v any) string {
	s, _ := v.(string)
	return s
}

// AttrInt is v as an int if it is a JSON number, else 0.
func AttrInt(v any) int {
	f, _ := v.(float64)
	return int(f)
}

// AttrOr is s, or def when s is empty.
func AttrOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// StringList reads a JSON list of strings.
func StringList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// SHA256Hex is the sha256 of s in hex. A text hashed lately is not hashed
// again (recentDigests): a plan hashes every service file of every node,
// twice for each service, and most files are alike on every worker.
func SHA256Hex(s string) string {
	if len(s) > maxRememberedText {
		return sha256Hex(s)
	}
	return recentDigests.Get(s, func() string { return sha256Hex(s) })
}

// recentDigests are the digests of the texts hashed lately, by text: a
// map's hash of a text costs a tenth of its sha256. At most 256 texts of
// at most maxRememberedText bytes each are held.
var recentDigests recent.Memo[string, string]

const maxRememberedText = 16 << 10

// sha256Hex copies s into a small buffer a piece at a time: []byte(s)
// copied each text whole, and hex.EncodeToString allocates twice.
func sha256Hex(s string) string {
	h := sha256.New()
	var buf [4096]byte
	for len(s) > 0 {
		n := copy(buf[:], s)
		h.Write(buf[:n])
		s = s[n:]
	}
	var sum [sha256.Size]byte
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], h.Sum(sum[:0]))
	return string(out[:])
}

// SortedUnion is the sorted union of two lists, each string once. It is
// never nil: an empty union is recorded as an empty list, not as null.
func SortedUnion(a, b []string) []string {
	out := append(append([]string{}, a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}
