package text

import "testing"

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 runs", 1: "1 run", 2: "2 runs"} {
		if got := Plural(n, "run"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}
