package providers

import (
	"io/fs"
	"strconv"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/providers/shell/shelltest"
)

// TestUploadFinishExitCodes keeps the script's exit codes and the
// constants the transports' errors test in step.
func TestUploadFinishExitCodes(t *testing.T) {
	for _, code := range []int{UploadExitNoChecksum, UploadExitMismatch, UploadExitInstall} {
		if !strings.Contains(uploadFinish, "exit "+strconv.Itoa(code)+";") {
			t.Errorf("the finishing script has no exit %d", code)
		}
	}
}

func TestUploadFinishCommand(t *testing.T) {
	got := UploadFinishCommand("/a b.eggo-tmp", "/a b", "00ff", fs.ModeSetuid|0o755)
	if !strings.HasPrefix(got, "sh -c '") || !strings.HasSuffix(got, "' eggo '/a b.eggo-tmp' '/a b' '00ff' 4755") {
		t.Fatalf("command = %q", got)
	}
}

// Every value of the finishing command line is one word, whatever it
// holds: the paths and the digest, which a caller may take from the state.
func TestUploadFinishCommandQuotesItsValues(t *testing.T) {
	values := map[string]string{"H1": shelltest.Hostile("H1"), "H2": shelltest.Hostile("H2")}
	cmd := UploadFinishCommand(TempName("/"+values["H1"]), "/"+values["H1"], values["H2"], 0o644)
	found := map[string]int{}
	for _, p := range shelltest.Check(cmd, values, found) {
		t.Error(p)
	}
	if found["H1"] != 2 || found["H2"] != 1 {
		t.Errorf("values found %v, want H1 twice and H2 once", found)
	}
}
