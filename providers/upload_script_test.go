package providers

import (
	"io/fs"
	"strconv"
	"strings"
	"testing"
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
	if !strings.HasPrefix(got, "sh -c '") || !strings.HasSuffix(got, "' eggo '/a b.eggo-tmp' '/a b' 00ff 4755") {
		t.Fatalf("command = %q", got)
	}
}
