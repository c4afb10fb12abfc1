package nspawntest

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Tree lists every file (with its sha256) and directory under /opt, /etc
// and /var/lib of a node, sorted: what a destroy must leave as it found.
func (tb *Testbed) Tree(ctx context.Context, name string) (string, error) {
	out, err := tb.Exec(ctx, name,
		`for d in /opt /etc /var/lib; do find "$d" -xdev \( -type f -exec sha256sum {} + \) -o \( ! -type f -print \) ; done 2>/dev/null | LC_ALL=C sort`)
	if err != nil {
		return "", fmt.Errorf("%s: listing its tree: %w", name, err)
	}
	return out, nil
}

// TreeDiff shows the lines only one of two trees has ("- " before, "+ "
// after), at most 20.
func TreeDiff(before, after string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	mb, ma := in(before), in(after)
	var out []string
	for l := range mb {
		if !ma[l] {
			out = append(out, "- "+l)
		}
	}
	for l := range ma {
		if !mb[l] {
			out = append(out, "+ "+l)
		}
	}
	sort.Strings(out)
	if len(out) > 20 {
		out = append(out[:20], fmt.Sprintf("… %d more", len(out)-20))
	}
	return strings.Join(out, "\n")
}
