package command

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The measuring variables write what they name: a CPU profile and a heap
// profile (gzip), an execution trace ("go 1.N trace"); a file that cannot
// be made is a warning, not a failure.
func TestProfilesAreWritten(t *testing.T) {
	dir := t.TempDir()
	cpu, mem, tr := filepath.Join(dir, "cpu"), filepath.Join(dir, "mem"), filepath.Join(dir, "trace")
	var errOut bytes.Buffer
	s := Streams{Err: &errOut, Env: []string{cpuProfileEnv + "=" + cpu, memProfileEnv + "=" + mem, traceEnv + "=" + tr}}
	if code := profiled(s, func() int { return 3 }); code != 3 {
		t.Fatalf("exit code %d, want fn's", code)
	}
	for path, head := range map[string]string{cpu: "\x1f\x8b", mem: "\x1f\x8b", tr: "go 1."} {
		data, err := os.ReadFile(path)
		if err != nil || !strings.HasPrefix(string(data), head) {
			t.Errorf("%s: %v, starts %q", path, err, data[:min(len(data), 8)])
		}
	}
	s.Env = []string{traceEnv + "=" + filepath.Join(dir, "missing", "trace")}
	if code := profiled(s, func() int { return 0 }); code != 0 || !strings.Contains(errOut.String(), "Warning: EGGO_TRACE") {
		t.Errorf("an unwritable trace: exit %d, stderr %q", code, errOut.String())
	}
}
