package jsonmsg

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestMessageKeysSorted: every declared message writes all its keys, in
// sorted order — the bytes the maps these structs replaced produced — so
// declaring a field out of order or omitempty fails here and not in a
// consumer's parser.
func TestMessageKeysSorted(t *testing.T) {
	for _, msg := range []any{
		Diagnostic{}, Range{}, Pos{}, Warning{}, PlannedChange{}, PlannedHook{}, UnreadableSecrets{},
		SecretsChange{}, HostKeyChange{}, ChangeSummary{}, RefreshStart{}, ApplyStart{},
		ApplyProgress{}, ApplyComplete{}, ApplyErrored{}, ApplySummary{}, Valid{},
		State{}, Resource{},
	} {
		name := reflect.TypeOf(msg).Name()
		got, err := json.Marshal(msg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var asMap map[string]any
		if err := json.Unmarshal(got, &asMap); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n := reflect.TypeOf(msg).NumField(); len(asMap) != n {
			t.Errorf("%s writes %d keys for its %d fields: one is omitted when empty", name, len(asMap), n)
		}
		want, _ := json.Marshal(asMap)
		if !bytes.Equal(got, want) {
			t.Errorf("%s's fields are not in the sorted order of their keys:\n got %s\nwant %s", name, got, want)
		}
	}
}
