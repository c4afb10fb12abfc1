package nspawntest

import (
	"strings"
	"testing"
)

func TestTreeDiff(t *testing.T) {
	got := TreeDiff("a\nb\nc", "a\nc\nd")
	if got != "+ d\n- b" {
		t.Fatalf("TreeDiff = %q", got)
	}
	var before strings.Builder
	for i := range 30 {
		before.WriteString(strings.Repeat("x", i+1) + "\n")
	}
	if d := TreeDiff(before.String(), ""); !strings.HasSuffix(d, "… 10 more") {
		t.Fatalf("30 lines gone: %q", d)
	}
}
