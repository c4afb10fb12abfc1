package text

import "testing"

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 runs", 1: "1 run", 2: "2 runs"} {
		if got := Plural(n, "run"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSome(t *testing.T) {
	names := []string{"a", "b", "c"}
	for max, want := range map[int]string{3: "a, b, c", 4: "a, b, c", 2: "a, b and 1 more", 1: "a and 2 more"} {
		if got := Some(names, max); got != want {
			t.Errorf("Some(%d) = %q, want %q", max, got, want)
		}
	}
}
