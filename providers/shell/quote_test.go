package shell

import (
	"os/exec"
	"testing"
)

// TestQuoteIsOneWordForSh runs sh on each quoted value and checks that it
// comes back as exactly one, unchanged argument.
func TestQuoteIsOneWordForSh(t *testing.T) {
	values := []string{"", "plain", "two words", "it's", `$(reboot)`, "`id`", "a;b", "x\ny", `"\'`, "*", "-n"}
	for _, v := range values {
		got, err := exec.Command("sh", "-c", "set -- "+Quote(v)+`; printf '%s|%s' "$#" "$1"`).Output()
		if err != nil {
			t.Fatalf("sh for %q: %v", v, err)
		}
		if want := "1|" + v; string(got) != want {
			t.Errorf("Quote(%q) through sh = %q, want %q", v, got, want)
		}
	}
	got, err := exec.Command("sh", "-c", "set -- "+QuoteAll([]string{"a b", "c'd", ""})+`; printf '%s|' "$#" "$@"`).Output()
	if err != nil || string(got) != "3|a b|c'd||" {
		t.Errorf("QuoteAll through sh = %q, %v", got, err)
	}
}
