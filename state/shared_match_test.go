package state

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// MarshalWith writes each value once and shares it by its bytes in the
// resources; the file must be, byte for byte, what encoding/json writes
// after the old sharing pass (shareValues, kept in shared_ref_test.go).
func TestShareMatchesReference(t *testing.T) {
	states := map[string]*State{
		"workers":  workersState(5),
		"cluster":  clusterState(20),
		"rules":    shareRulesState(),
		"big":      bigState(50),
		"sample":   sampleState(),
		"nothing":  New(),
		"one held": {FormatVersion: 4, Lineage: "l", Resources: []Resource{{Address: "a", Kind: "k", Attributes: map[string]any{"v": strings.Repeat("x", 100)}}}},
	}
	for seed := range 200 {
		states[fmt.Sprintf("random %d", seed)] = randomSharingState(rand.New(rand.NewPCG(uint64(seed), 7)))
	}
	for name, s := range states {
		got, err := Marshal(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := referenceEncode(t, s); !bytes.Equal(got, want) {
			t.Errorf("%s: the single pass and the reference differ:\n%s\n---\n%s", name, got, want)
		}
	}
}

// shareRulesState holds a case of every rule of sharing, and values whose
// length alone at depth 0 is just under or at minShared (their tabs in
// the resources make them longer there).
func shareRulesState() *State {
	long := "a long value, held by several resources, so worth a place in the table"
	key := "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n"
	nested := map[string]any{"a": []any{map[string]any{"b": []any{1.5, nil, true, "x"}}, []any{}}, "c": map[string]any{}, "d": []string{"go", "types"}}
	// ["aaaa…", "b"]: 63 bytes at depth 0 with its newlines and tabs, 64
	// with one more letter (TestShareRulesStateEdges).
	under, at := edgeLists()
	s := &State{FormatVersion: 4, Serial: 3, Lineage: "l", EggoVersion: "t", DataKey: "dk",
		Recipients: []string{"age1xyz"}, HostKeys: map[string]string{"w1": "ssh-ed25519 AAAA", "w0": "ssh-ed25519 BBBB"},
		Outputs: map[string]any{"kubeconfig": long, "n": float64(2)}, SensitiveOutputs: []string{"kubeconfig"}}
	for i := range 3 {
		a := map[string]any{
			"long": long, "key": key, "nested": nested, "under": under, "at": at,
			"ref_short": "@shared:x", "ref_long": "@shared:" + strings.Repeat("r", 80),
			"once":    fmt.Sprintf("a long value only this resource holds, number %d of the three", i),
			"go_list": []string{long, long}, "empty": map[string]any{}, "nil": nil,
			"escaped": "\"quotes\" and \\ and \n newlines \t tabs and \u2028 and <html> & more, long enough",
		}
		if i == 0 {
			// Held once elsewhere and once as a secret: not shared.
			a["half_secret"] = key + "x"
			a["ref_once"] = "@shared:only-once"
		}
		if i == 1 {
			a["half_secret"] = key + "x"
			a["twice_here"] = []any{long}
			a["twice_here_too"] = []any{long}
		}
		sensitive := []string{"key"}
		if i == 1 {
			sensitive = []string{"half_secret", "key"}
		}
		s.Resources = append(s.Resources, Resource{Address: fmt.Sprintf("r.%d", i), Kind: "r", Attributes: a, Sensitive: sensitive})
	}
	return s
}

func edgeLists() (under, at []any) {
	return []any{strings.Repeat("a", 50), "b"}, []any{strings.Repeat("a", 51), "b"}
}

func TestShareRulesStateEdges(t *testing.T) {
	var w jsonWriter
	under, at := edgeLists()
	if worthSharing(&w, under) || len(w.buf) != minShared-1 || !worthSharing(&w, at) || len(w.buf) != minShared {
		t.Fatalf("edgeLists are not one byte either side of minShared")
	}
	data := string(Encode(shareRulesState()))
	for _, want := range []string{`"once": "a long`, `"half_secret": "-----BEGIN`, `"ref_short": "@shared:`, `"under": [`, `"at": "@shared:`, `"long": "@shared:`} {
		if !strings.Contains(data, want) {
			t.Errorf("the rules state lacks %s:\n%s", want, data)
		}
	}
}

// randomSharingState draws the attributes of a few resources from a small
// pool, so that values repeat, at random depths and in random places,
// some marked sensitive.
func randomSharingState(r *rand.Rand) *State {
	var pool []any
	leaf := func() any {
		switch r.IntN(6) {
		case 0:
			return strings.Repeat("ab\n", r.IntN(40))
		case 1:
			return sharedPrefix + strings.Repeat("z", r.IntN(70))
		case 2:
			return float64(r.IntN(1000)) / 8
		case 3:
			return nil
		case 4:
			return r.IntN(2) == 0
		}
		return fmt.Sprintf("value %d", r.IntN(5))
	}
	for range 12 {
		pool = append(pool, leaf())
	}
	var compose func(depth int) any
	compose = func(depth int) any {
		if depth > 2 || r.IntN(3) == 0 {
			return pool[r.IntN(len(pool))]
		}
		if r.IntN(2) == 0 {
			l := make([]any, r.IntN(5))
			for i := range l {
				l[i] = compose(depth + 1)
			}
			return l
		}
		m := map[string]any{}
		for range r.IntN(5) {
			m[fmt.Sprintf("k%d", r.IntN(6))] = compose(depth + 1)
		}
		return m
	}
	for range 10 {
		pool = append(pool, compose(0))
	}
	s := New()
	for i := range 1 + r.IntN(8) {
		res := Resource{Address: fmt.Sprintf("x.%d", i), Kind: "x", Attributes: map[string]any{}}
		for range r.IntN(6) {
			name := fmt.Sprintf("a%d", r.IntN(8))
			res.Attributes[name] = pool[r.IntN(len(pool))]
			if r.IntN(5) == 0 {
				res.Sensitive = append(res.Sensitive, name)
			}
		}
		s.Set(res)
	}
	return s
}

// Two values whose ids meet on their first 12 hex digits (found by
// hashing 2^26 such strings): the later in byte order takes all 64.
func TestShareIDCollision(t *testing.T) {
	val := func(i int) string {
		return fmt.Sprintf("a value of sixty-four bytes or more, whose id meets another's: %010d", i)
	}
	a, b := val(7344959), val(61144989)
	sa, sb := sha256.Sum256([]byte(`"`+a+`"`)), sha256.Sum256([]byte(`"`+b+`"`))
	if !bytes.Equal(sa[:6], sb[:6]) {
		t.Fatal("the two values' ids do not meet")
	}
	s := New()
	for _, addr := range []string{"x.1", "x.2"} {
		s.Set(Resource{Address: addr, Kind: "x", Attributes: map[string]any{"a": a, "b": b, "c": []any{b}}})
	}
	got := Encode(s)
	if want := referenceEncode(t, s); !bytes.Equal(got, want) {
		t.Fatalf("the single pass and the reference differ:\n%s\n---\n%s", got, want)
	}
	short, full := hex.EncodeToString(sa[:6]), hex.EncodeToString(sb[:])
	if !strings.Contains(string(got), `"a": "@shared:`+short+`"`) || !strings.Contains(string(got), `"b": "@shared:`+full+`"`) {
		t.Fatalf("want a as %s and b as %s:\n%s", short, full, got)
	}
	decoded, err := Decode(got, "t.state")
	if err != nil || decoded.Resources[1].Attributes["b"] != b {
		t.Fatalf("decoded: %v, %v", decoded, err)
	}
}
