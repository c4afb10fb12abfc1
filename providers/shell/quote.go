// Package shell is the one place eggo makes a value safe for a POSIX shell
// on a host: every path, name and argument that reaches a remote command
// line is quoted here, so no caller builds its own quoting.
package shell

import "strings"

// Quote makes s one word for a POSIX shell: single-quoted; each quote
// inside closes the quoting, adds an escaped quote and reopens it. Nothing
// inside single quotes is expanded, so values such as '$(x)" stay data.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// QuoteAll quotes each of list and joins them with spaces: one word each.
func QuoteAll(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = Quote(s)
	}
	return strings.Join(q, " ")
}
