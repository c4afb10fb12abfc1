package state

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadMissingIsNoStateYet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eggo.state")
	s, err := Read(path)
	if s != nil || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read of a missing file = %v, %v; want nil and an fs.ErrNotExist error", s, err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error should name the file: %v", err)
	}
}

func TestReadGoldenFiles(t *testing.T) {
	for _, name := range []string{"empty.state", "cluster.state"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			s, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(path)
			if got := Encode(s); string(got) != string(want) {
				t.Errorf("read+encode of %s is not byte-identical:\n%s", path, got)
			}
		})
	}
}

func TestUpgradeFromV0(t *testing.T) {
	s, err := Read(filepath.Join("testdata", "v0-cluster.state"))
	if err != nil {
		t.Fatal(err)
	}
	if s.FormatVersion != FormatVersion || s.Serial != 41 || s.Lineage != "0d9a4b1e-7c2f-4a3d-8e6b-5f4c3b2a1908" {
		t.Errorf("header not carried over: %+v", s)
	}
	var addrs []string
	for _, r := range s.Resources {
		addrs = append(addrs, r.Address)
	}
	if got := strings.Join(addrs, " "); got != "etcd_member.master-0 host.master-0 pki.cluster_ca" {
		t.Errorf("resources = %s, want them as a list sorted by address", got)
	}
	etcd, _ := s.Lookup("etcd_member.master-0")
	if etcd.Status != StatusPending || strings.Join(etcd.Dependencies, ",") != "host.master-0,pki.cluster_ca" {
		t.Errorf("pending flag or depends_on not upgraded: %+v", etcd)
	}
	ca, _ := s.Lookup("pki.cluster_ca")
	if len(ca.Sensitive) != 1 || ca.Sensitive[0] != "key_pem" {
		t.Errorf("sensitive marks lost: %+v", ca)
	}
	checkGolden(t, "upgraded-from-v0.state", Encode(s))
}

func TestUpgradeChainCoversEveryOlderFormat(t *testing.T) {
	if len(upgrades) != FormatVersion {
		t.Fatalf("%d upgrade steps for format %d: every format below the current one needs exactly one", len(upgrades), FormatVersion)
	}
}

// upgradesToGolden reads an older format's golden file and checks that it
// encodes as exactly the current golden cluster.state.
func upgradesToGolden(t *testing.T, name string) *State {
	t.Helper()
	s, err := Read(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join("testdata", "cluster.state"))
	if got := Encode(s); string(got) != string(want) {
		t.Errorf("%s upgraded:\n%s\nwant testdata/cluster.state", name, got)
	}
	return s
}

// A format-1 file (before encryption and pinned host keys) reads as the
// same state: the golden v1 file upgrades to exactly the current golden.
func TestUpgradeFromV1(t *testing.T) {
	s := upgradesToGolden(t, "v1-cluster.state")
	if n := s.PlainSecrets(); n != 1 {
		t.Errorf("PlainSecrets = %d, want the 1 plain key the v1 file holds (to be sealed on the next write)", n)
	}
}

// A format-3 file (before the data key) reads as the same state: only its
// number changes.
func TestUpgradeFromV3(t *testing.T) {
	upgradesToGolden(t, "v3-cluster.state")
	for _, bad := range []string{`{"format_version": 35, "lineage": "l"}`, `{"lineage": "l"}`} {
		if _, err := upgradeV3([]byte(bad)); err == nil {
			t.Errorf("upgradeV3(%s): no error", bad)
		}
	}
}

func TestNewerFormatRefused(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "eggo.state", `{"format_version": 7, "lineage": "x", "resources": {"some": "new shape"}}`)
	_, err := Read(path)
	var newer *NewerFormatError
	if !errors.As(err, &newer) || newer.Format != 7 {
		t.Fatalf("got %v, want a NewerFormatError for format 7", err)
	}
	want := path + " was written by a newer eggo (format 7, this eggo reads up to 4): upgrade eggo"
	if err.Error() != want {
		t.Errorf("message:\n got %s\nwant %s", err, want)
	}
}

func TestCorruptFilesRefused(t *testing.T) {
	const lineage = `"lineage": "l"`
	tests := []struct {
		name, content string
		wantProblem   string
		wantLine      int // 0: no position expected
	}{
		{"empty file", ``, "ends too early", 1},
		{"bad json", "{\n  \"format_version\": 2,\n  \"serial\": oops\n}", "serial must be a whole number from 0 up, found 'o'", 3},
		{"truncated", "{\n  \"format_version\": 2,\n  \"resources\": [", "ends too early", 3},
		{"not an object", `[1, 2]`, "not a JSON object", 1},
		{"no version", `{` + lineage + `, "resources": []}`, "format_version is missing", 0},
		{"negative version", `{"format_version": -1, ` + lineage + `}`, "format version -1", 0},
		{"wrong type", "{\"format_version\": 2,\n" + lineage + ",\n\"serial\": \"seven\"}", "serial", 3},
		{"missing lineage", `{"format_version": 2, "resources": []}`, "lineage is missing", 0},
		{"unknown field", `{"format_version": 2, ` + lineage + `, "resources": [], "extra": 1}`, `unknown field "extra"`, 1},
		{"duplicate field", "{\"format_version\": 2,\n" + lineage + ",\n" + lineage + "}", `field "lineage" appears twice`, 3},
		{"bad escape", "{\"format_version\": 2,\n" + lineage + ",\n\"eggo_version\": \"a\\qb\"}", `invalid escape \q`, 3},
		{"raw control character", "{\"format_version\": 2,\n" + lineage + ",\n\"eggo_version\": \"a\tb\"}", "control character", 3},
		{"number out of range", "{\"format_version\": 2,\n" + lineage + ",\n\"outputs\": {\"n\": 1e999}}", "number 1e999 is out of range", 3},
		{"bad number", "{\"format_version\": 2,\n" + lineage + ",\n\"outputs\": {\"n\": 01}}", "expected ',' or '}'", 3},
		{"trailing data", `{"format_version": 2, ` + lineage + `} {}`, "unexpected data after the state", 1},
		{"duplicate address", `{"format_version": 2, ` + lineage + `, "resources": [
			{"address": "host.a", "kind": "host", "attributes": {}},
			{"address": "host.a", "kind": "host", "attributes": {}}]}`, "host.a appears more than once", 0},
		{"no address", `{"format_version": 2, ` + lineage + `, "resources": [{"kind": "host"}]}`, "has no address", 0},
		{"no kind", `{"format_version": 2, ` + lineage + `, "resources": [{"address": "host.a"}]}`, "host.a has no kind", 0},
		{"bad status", `{"format_version": 2, ` + lineage + `, "resources": [{"address": "host.a", "kind": "host", "status": "weird"}]}`, `unknown status "weird"`, 0},
		{"bad v0", `{"version": 0, ` + lineage + `, "resources": {"host.a": {"kind": "host", "pending": "yes"}}}`, "reading format 0", 1},
	}
	for _, withBackup := range []bool{true, false} {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				dir := t.TempDir()
				path := writeFile(t, dir, "eggo.state", tt.content)
				if withBackup {
					writeFile(t, dir, "eggo.state.backup", string(Encode(sampleState())))
				}
				_, err := Read(path)
				var corrupt *CorruptError
				if !errors.As(err, &corrupt) {
					t.Fatalf("got %v, want a CorruptError", err)
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, path+" is corrupt") || !strings.Contains(msg, tt.wantProblem) {
					t.Errorf("message %q should name %s and say %q", msg, path, tt.wantProblem)
				}
				if tt.wantLine != 0 && corrupt.Line != tt.wantLine {
					t.Errorf("line = %d, want %d (%s)", corrupt.Line, tt.wantLine, msg)
				}
				if tt.wantLine == 0 && corrupt.Offset != -1 {
					t.Errorf("offset = %d for a problem without a place (%s)", corrupt.Offset, msg)
				}
				wantBackup := "the previous state is in " + path + ".backup"
				if !withBackup {
					wantBackup = "there is no backup (" + path + ".backup does not exist)"
				}
				if !strings.HasSuffix(msg, wantBackup) {
					t.Errorf("message %q should end with %q", msg, wantBackup)
				}
			})
		}
	}
}

func TestDecodeNormalizes(t *testing.T) {
	s, err := Decode([]byte(`{"format_version": 1, "lineage": "l", "resources": [
		{"address": "k.b", "kind": "k", "attributes": {"x": 1, "y": 2}, "dependencies": ["k.z", "k.a"], "sensitive": ["y", "x"]},
		{"address": "k.a", "kind": "k", "attributes": {"n": 1}}]}`), "mem")
	if err != nil {
		t.Fatal(err)
	}
	if s.Resources[0].Address != "k.a" || s.Resources[1].Address != "k.b" {
		t.Errorf("resources not sorted: %+v", s.Resources)
	}
	b := s.Resources[1]
	if b.Attributes == nil || b.Dependencies[0] != "k.a" || b.Sensitive[0] != "x" {
		t.Errorf("resource not normalized: %+v", b)
	}
	if n, ok := s.Resources[0].Attributes["n"].(float64); !ok || n != 1 {
		t.Errorf("numbers should decode as float64, got %T", s.Resources[0].Attributes["n"])
	}
}
