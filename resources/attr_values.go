package resources

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
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

func SHA256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// SortedUnion is the sorted union of two lists, each string once. It is
// never nil: an empty union is recorded as an empty list, not as null.
func SortedUnion(a, b []string) []string {
	out := append(append([]string{}, a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}
