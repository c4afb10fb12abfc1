// Package text holds the small wording helpers every layer's messages
// share, and Safe, which makes text other people wrote safe to print on
// the operator's terminal. It imports nothing of eggo, so any package may
// use it.
package text

import (
	"fmt"
	"strings"
	"time"
)

// Plural counts n of word, with an s unless n is 1: "1 resource",
// "3 resources".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Some joins names, the first max of them when there are more, and counts
// the rest: "a, b and 3 more". A message about ten thousand nodes stays
// one line.
func Some(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}

// Duration is d as a person writes it, in HCL and in plans: "720h" and
// "1h30m" rather than Go's "720h0m0s" and "1h30m0s".
func Duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
