package state

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
)

// FuzzRead checks that any input is either refused with an error or
// decodes to a state whose encoding is stable: encode, decode and encode
// again gives the same bytes. It must never panic. The seeds are in
// testdata/fuzz/FuzzRead (made from the golden files by -update) and every
// testdata/*.state file.
func FuzzRead(f *testing.F) {
	goldens, err := filepath.Glob(filepath.Join("testdata", "*.state"))
	if err != nil || len(goldens) == 0 {
		f.Fatalf("no golden files to seed from: %v", err)
	}
	for _, path := range goldens {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, seed := range []string{
		`{"format_version": 7}`,
		`{"version": 0, "lineage": "l", "resources": {"a": {"kind": "k", "pending": true, "depends_on": ["z", "b"]}}}`,
		`{"format_version": 1, "lineage": "l", "resources": [{"address": "a", "kind": "k", "attributes": {"n": 1e300, "s": "\u00e9\ud800", "l": [null, {}, []]}}]}`,
		`{"format_version": 1, "lineage": "l", "resources": [{"address": "a", "kind": "k"}, {"address": "a", "kind": "k"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Whatever the hand-written reader accepts, encoding/json reads
		// the same way.
		if p := (jsonReader{data: data}); true {
			if got, err := p.state(); err == nil {
				want, refErr := referenceDecode(data)
				if refErr != nil {
					t.Fatalf("reader accepted what encoding/json refuses (%v)", refErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("reader and encoding/json differ:\n%#v\n%#v", got, want)
				}
			}
		}
		s, err := Decode(data, "fuzz.state")
		if err != nil {
			if s != nil {
				t.Fatalf("Decode returned both a state and an error: %v", err)
			}
			return
		}
		first, err := Marshal(s)
		if err != nil {
			t.Fatalf("a decoded state does not encode: %v", err)
		}
		if ref := referenceEncode(t, s); !bytes.Equal(first, ref) {
			t.Fatalf("writer and encoding/json differ:\n%s\n---\n%s", first, ref)
		}
		again, err := Decode(first, "fuzz.state")
		if err != nil {
			t.Fatalf("the encoding of a decoded state does not decode: %v\n%s", err, first)
		}
		if second := Encode(again); !bytes.Equal(first, second) {
			t.Fatalf("encoding is not stable:\n%s\n---\n%s", first, second)
		}
	})
}

// TestFuzzSeedsMatchGoldens keeps testdata/fuzz/FuzzRead in step with the
// golden files (rewritten under -update), so the checked-in corpus always
// holds at least every golden file.
func TestFuzzSeedsMatchGoldens(t *testing.T) {
	goldens, _ := filepath.Glob(filepath.Join("testdata", "*.state"))
	dir := filepath.Join("testdata", "fuzz", "FuzzRead")
	for _, path := range goldens {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		seed := "go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n"
		seedPath := filepath.Join(dir, "golden-"+filepath.Base(path))
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(seedPath, []byte(seed), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(seedPath)
		if err != nil || string(got) != seed {
			t.Errorf("%s is missing or out of date (run go test ./state/ -update): %v", seedPath, err)
		}
	}
}
