// Package resourcestest holds helpers the tests of every kind family share,
// as net/http/httptest does for net/http. Only tests import it.
package resourcestest

import (
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// WriteFile writes content at p with mode (parents created), failing t on error.
func WriteFile(t testing.TB, p, content string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// ViaState is attrs as they come back from the JSON state file.
func ViaState(t testing.TB, a resources.Attrs) resources.Attrs {
	t.Helper()
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var out resources.Attrs
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// KubectlCalls are the argument lines a fake kubectl recorded in calls
// (nil if it was never run).
func KubectlCalls(t testing.TB, calls string) []string {
	t.Helper()
	b, err := os.ReadFile(calls)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// updateGolden rewrites the golden files a test compares with (CheckGolden)
// from what the code renders: only to change an output on purpose.
var updateGolden = flag.Bool("update-golden", false, "rewrite the golden files of CheckGolden")

// CheckGolden compares got (and err, which must be nil) with the golden
// file at path, or rewrites the file with -update-golden.
func CheckGolden(t *testing.T, path, got string, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s: the rendering differs from the golden file (%d bytes, want %d):\n%s", path, len(got), len(want), got)
	}
}
