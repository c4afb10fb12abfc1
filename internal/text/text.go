// Package text holds the small wording helpers every layer's messages
// share. It imports nothing of eggo, so any package may use it.
package text

import "fmt"

// Plural counts n of word, with an s unless n is 1: "1 resource",
// "3 resources".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
