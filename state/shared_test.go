package state

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const sharedUnit = "[Unit]\nDescription=the same unit on every worker\n\n[Service]\nExecStart=/usr/local/bin/kubelet\n"

// workersState is n workers recording the same unit and connection, each
// its own address, and one that records a string looking like a reference.
func workersState(n int) *State {
	s := New()
	for i := range n {
		node := string(rune('a' + i))
		s.Set(Resource{Address: "service.kubelet[\"" + node + "\"]", Kind: "service", Node: node, Attributes: map[string]any{
			"unit":       sharedUnit,
			"connection": map[string]any{"type": "ssh", "user": "root", "port": float64(22), "known_hosts_file": "/etc/eggo/known_hosts"},
			"address":    "10.0.0." + node,
			"short":      "same everywhere, but short",
		}})
	}
	s.Set(Resource{Address: "odd.one", Kind: "odd", Attributes: map[string]any{"note": "@shared:not-a-reference"}})
	return s
}

func TestSharedValuesAreWrittenOnce(t *testing.T) {
	s := workersState(3)
	data := Encode(s)
	text := string(data)
	if n := strings.Count(text, "the same unit on every worker"); n != 1 {
		t.Errorf("the unit is written %d times, want once:\n%s", n, text)
	}
	if n := strings.Count(text, "known_hosts_file"); n != 1 {
		t.Errorf("the connection is written %d times, want once:\n%s", n, text)
	}
	if n := strings.Count(text, "same everywhere, but short"); n != 4-1 {
		t.Errorf("a short value is written %d times, want 3 (not worth sharing)", n)
	}
	if strings.Count(text, `"@shared:not-a-reference"`) != 1 || strings.Count(text, `"note": "@shared:`) != 1 {
		t.Errorf("a literal string that looks like a reference must move into the table:\n%s", text)
	}
	got, err := Decode(data, "t.state")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Resources, s.Resources) || got.Shared != nil {
		t.Fatalf("decoded state differs from the one encoded:\n%s", text)
	}
	// A run changes a copy of what it read, and in the copy each
	// resource has its own maps again.
	c := got.Copy()
	c.Resources[1].Attributes["connection"].(map[string]any)["user"] = "changed"
	if c.Resources[2].Attributes["connection"].(map[string]any)["user"] != "root" {
		t.Fatal("two resources of a copied state share one map")
	}
	// The caller's state is left as it was.
	if s.Resources[1].Attributes["unit"] != sharedUnit {
		t.Fatal("Encode replaced the caller's value by a reference")
	}
}

// Two resources holding the same secret in a file without recipients
// keep it each in place, beside its sensitive mark.
func TestSensitiveValuesAreNotShared(t *testing.T) {
	key := "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n"
	s := New()
	for _, a := range []string{"cert.admin", "kubeconfig.admin"} {
		s.Set(Resource{Address: a, Kind: "x", Attributes: map[string]any{"key": key}, Sensitive: []string{"key"}})
	}
	text := string(Encode(s))
	if strings.Contains(text, `"shared"`) || strings.Count(text, "BEGIN PRIVATE KEY") != 2 {
		t.Fatalf("a sensitive value was shared:\n%s", text)
	}
}

// The ids come from the values: a resource added elsewhere moves no
// reference, so the diff of a join is the join.
func TestSharedIDsAreStable(t *testing.T) {
	three := workersState(3)
	before := Encode(workersState(2))
	after := Encode(three)
	ref := func(data []byte) string {
		i := strings.Index(string(data), `"unit": "@shared:`)
		if i < 0 {
			t.Fatalf("no shared unit in\n%s", data)
		}
		return string(data[i : i+len(`"unit": "@shared:`)+12])
	}
	if ref(before) != ref(after) {
		t.Errorf("the unit's id moved: %s, then %s", ref(before), ref(after))
	}
	if !reflect.DeepEqual(Encode(three), after) {
		t.Error("two encodings of one state differ")
	}
}

func TestDanglingSharedReferenceIsCorrupt(t *testing.T) {
	data := strings.Replace(string(Encode(workersState(2))), `"unit": "@shared:`, `"unit": "@shared:0000`, 1)
	path := filepath.Join(t.TempDir(), "eggo.state")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Read(path)
	var corrupt *CorruptError
	if !errors.As(err, &corrupt) || !strings.Contains(err.Error(), `resource service.kubelet["a"]: attribute "unit" refers to shared value "0000`) {
		t.Fatalf("got %v, want a CorruptError naming the resource and attribute", err)
	}
}

// A format-2 file has no table: a string in it that looks like a
// reference is literal, and stays so through the upgrade and a write.
func TestUpgradeFromV2(t *testing.T) {
	upgradesToGolden(t, "v2-cluster.state")
	v2 := `{"format_version": 2, "serial": 1, "lineage": "l", "eggo_version": "x", "resources": [
	  {"address": "odd.one", "kind": "odd", "attributes": {"note": "@shared:abc"}}]}`
	got, err := Decode([]byte(v2), "v2.state")
	if err != nil {
		t.Fatal(err)
	}
	if got.Resources[0].Attributes["note"] != "@shared:abc" {
		t.Fatalf("literal lost in the upgrade: %v", got.Resources[0].Attributes)
	}
	again, err := Decode(Encode(got), "again.state")
	if err != nil || again.Resources[0].Attributes["note"] != "@shared:abc" {
		t.Fatalf("literal lost in a write: %v, %v", again, err)
	}
}

// What a worker adds to the file stays the same however many workers
// share its values: the table is written once.
func TestSharedFileGrowsByTheUnsharedPartOnly(t *testing.T) {
	perWorker := func(n int) int { return len(Encode(workersState(n))) }
	a, b := perWorker(5)-perWorker(4), perWorker(15)-perWorker(14)
	if a != b {
		t.Errorf("the 5th worker adds %d bytes, the 15th %d", a, b)
	}
	if a > 400 {
		t.Errorf("a worker adds %d bytes: its unit or connection is written again", a)
	}
}

// eggo writes the table before the resources, and resolves each resource
// as it is read; a file with the table last (edited by hand) reads the same.
func TestSharedTableAfterTheResources(t *testing.T) {
	data := `{"format_version": 3, "serial": 1, "lineage": "l", "eggo_version": "x",
	  "resources": [{"address": "odd.one", "kind": "odd", "attributes": {"note": "@shared:abc", "n": 1}}],
	  "shared": {"abc": {"k": "v"}}}`
	s, err := Decode([]byte(data), "t.state")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Resources[0].Attributes["note"]; !reflect.DeepEqual(got, map[string]any{"k": "v"}) {
		t.Fatalf("note = %v", got)
	}
}

// A file eggo wrote is resolved as it is read: no second pass over every
// attribute of every resource.
func TestSharedResolvedWhileReading(t *testing.T) {
	p := jsonReader{data: Encode(workersState(3))}
	s, err := p.state()
	if err != nil {
		t.Fatal(err)
	}
	if !p.resolvedAll || s.Resources[1].Attributes["unit"] != sharedUnit {
		t.Fatalf("resolved while reading: %v, unit %v", p.resolvedAll, s.Resources[1].Attributes["unit"])
	}
}
