package state

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// dirEntries lists the names in dir, sorted.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWriteFirstTime(t *testing.T) {
	dir := t.TempDir()
	st := NewStore(filepath.Join(dir, "eggo.state"))
	s := sampleState()
	if err := st.Write(s); err != nil {
		t.Fatal(err)
	}
	if got := readBytes(t, st.Path()); !bytes.Equal(got, Encode(s)) {
		t.Errorf("file content is not Encode(s):\n%s", got)
	}
	if names := dirEntries(t, dir); !slices.Equal(names, []string{"eggo.state"}) {
		t.Errorf("directory holds %v, want only eggo.state (no backup of nothing, no temp files)", names)
	}
	info, _ := os.Stat(st.Path())
	if info.Mode().Perm() != 0o600 {
		t.Errorf("new state file mode %v, want 0600 (it holds secrets)", info.Mode().Perm())
	}
}

func TestWriteKeepsBackupOfPreviousVersion(t *testing.T) {
	dir := t.TempDir()
	st := NewStore(filepath.Join(dir, "eggo.state"))
	var versions [][]byte
	s := sampleState()
	for i := range 3 {
		s.Serial = uint64(i + 1)
		s.Set(Resource{Address: fmt.Sprintf("host.extra%d", i), Kind: "host"})
		if err := st.Write(s); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, Encode(s))
		if got := readBytes(t, st.Path()); !bytes.Equal(got, versions[i]) {
			t.Fatalf("write %d: file is not the new state", i)
		}
		if i > 0 {
			if got := readBytes(t, st.BackupPath()); !bytes.Equal(got, versions[i-1]) {
				t.Fatalf("write %d: backup is not the previous version:\n%s", i, got)
			}
		}
	}
	if names := dirEntries(t, dir); !slices.Equal(names, []string{"eggo.state", "eggo.state.backup"}) {
		t.Errorf("directory holds %v: temp files left behind?", names)
	}
}

func TestWriteUnchangedTouchesNothing(t *testing.T) {
	dir := t.TempDir()
	st := NewStore(filepath.Join(dir, "eggo.state"))
	s := sampleState()
	if err := st.Write(s); err != nil {
		t.Fatal(err)
	}
	// An old mtime makes any rewrite visible even on coarse clocks.
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(st.Path(), old, old); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(st.Path())

	// An equal state built differently (a copy with resources reversed).
	again := s.Copy()
	slices.Reverse(again.Resources)
	if err := st.Write(again); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(st.Path())
	if !after.ModTime().Equal(old) {
		t.Errorf("mtime changed from %v to %v: an unchanged state was rewritten", old, after.ModTime())
	}
	if before.Sys().(*syscall.Stat_t).Ino != after.Sys().(*syscall.Stat_t).Ino {
		t.Error("inode changed: an unchanged state was replaced")
	}
	if names := dirEntries(t, dir); !slices.Equal(names, []string{"eggo.state"}) {
		t.Errorf("directory holds %v, want no backup after a no-op write", names)
	}
}

func TestWriteKeepsFileMode(t *testing.T) {
	st := NewStore(filepath.Join(t.TempDir(), "eggo.state"))
	s := sampleState()
	if err := st.Write(s); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(st.Path(), 0o640); err != nil {
		t.Fatal(err)
	}
	s.Serial++
	if err := st.Write(s); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{st.Path(), st.BackupPath()} {
		if info, _ := os.Stat(p); info.Mode().Perm() != 0o640 {
			t.Errorf("%s has mode %v, want the state file's 0640", p, info.Mode().Perm())
		}
	}
}

func TestWriteRefusesWhatReadWouldRefuse(t *testing.T) {
	tests := []struct {
		name   string
		change func(*State)
		want   string
	}{
		{"no lineage", func(s *State) { s.Lineage = "" }, "lineage is missing"},
		{"old format", func(s *State) { s.FormatVersion = 0 }, "format_version is 0"},
		{"duplicate", func(s *State) { s.Resources = append(s.Resources, s.Resources[0]) }, "appears more than once"},
		{"NaN", func(s *State) { s.Resources[0].Attributes["x"] = math.Inf(1) }, "attribute \"x\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			st := NewStore(filepath.Join(dir, "eggo.state"))
			good := sampleState()
			if err := st.Write(good); err != nil {
				t.Fatal(err)
			}
			bad := sampleState()
			tt.change(bad)
			err := st.Write(bad)
			if err == nil || !strings.Contains(err.Error(), st.Path()) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error naming %s and saying %q", err, st.Path(), tt.want)
			}
			if got := readBytes(t, st.Path()); !bytes.Equal(got, Encode(good)) {
				t.Error("a refused write changed the file")
			}
			if names := dirEntries(t, dir); !slices.Equal(names, []string{"eggo.state"}) {
				t.Errorf("directory holds %v after a refused write", names)
			}
		})
	}
}

func TestWriteIntoMissingDirectoryNamesPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "eggo.state")
	err := NewStore(path).Write(sampleState())
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("got %v, want an error naming %s", err, path)
	}
}

// Parallel writers through one store never interleave: the file always
// reads back as one of the states, and nothing is left behind.
func TestConcurrentWrites(t *testing.T) {
	dir := t.TempDir()
	st := NewStore(filepath.Join(dir, "eggo.state"))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := sampleState()
			s.Serial = uint64(i)
			if err := st.Write(s); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s, err := st.Read()
	if err != nil {
		t.Fatal(err)
	}
	if s.Serial >= 8 {
		t.Errorf("serial %d was never written", s.Serial)
	}
	if names := dirEntries(t, dir); !slices.Equal(names, []string{"eggo.state", "eggo.state.backup"}) {
		t.Errorf("directory holds %v", names)
	}
}

func TestNewLineage(t *testing.T) {
	a, b := NewLineage(), NewLineage()
	if a == b {
		t.Fatal("two lineages are equal")
	}
	if len(a) != 36 || a[8] != '-' || a[14] != '4' || strings.Trim(a, "0123456789abcdef-") != "" {
		t.Errorf("lineage %q is not a v4 UUID in lowercase hex", a)
	}
}
