package state

import (
	"bytes"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// decodeBoth decodes data in parts and in one pass.
func decodeBoth(t *testing.T, data []byte) (parts, onePass *State, partsErr, onePassErr error) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	old := parallelMin
	defer func() { parallelMin = old }()
	parallelMin = 2
	parts, partsErr = Decode(data, "t.state")
	parallelMin = 1 << 62
	onePass, onePassErr = Decode(data, "t.state")
	return
}

// TestDecodeInPartsIsDecodeInOnePass: a large state's resources decoded
// by several goroutines are those one pass decodes, and a problem in one
// of them is reported exactly as one pass reports it.
func TestDecodeInPartsIsDecodeInOnePass(t *testing.T) {
	data := Encode(bigState(301))
	parts, onePass, err1, err2 := decodeBoth(t, data)
	if err1 != nil || err2 != nil {
		t.Fatalf("errors: %v, %v", err1, err2)
	}
	if !reflect.DeepEqual(parts, onePass) || len(parts.Resources) != 301 {
		t.Fatal("the parts' decode differs from one pass")
	}
	// The parts were taken: the array is split and each part decodes.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	parallelMin = 2
	defer func() { parallelMin = 2048 }()
	q := &jsonReader{data: data, pos: bytes.Index(data, []byte(`"resources": [`)) + len(`"resources": `), depth: 1}
	raw, err := (&jsonReader{data: data}).state()
	if err != nil {
		t.Fatal(err)
	}
	rs, _, ok := q.parallelResources()
	if ok {
		err = resolveShared(&State{Resources: rs}, raw.Shared)
	}
	if !ok || err != nil || !reflect.DeepEqual(rs, onePass.Resources) {
		t.Fatalf("parallelResources: ok %v, %d resources", ok, len(rs))
	}
	mid := bytes.Index(data, []byte(`"n000150"`))
	for name, bad := range map[string][]byte{
		"a wrong type":      bytes.Replace(data, []byte(`"kind": "service"`), []byte(`"kind": 5`), 1),
		"a late wrong type": append(append(append([]byte{}, data[:mid]...), []byte(`5`)...), data[mid+len(`"n000150"`):]...),
		"a duplicate field": bytes.Replace(data, []byte(`"kind": "service",`), []byte(`"kind": "service", "kind": "x",`), 1),
		"an open string":    data[:mid+3],
		"a stray bracket":   bytes.Replace(data, []byte(`"pki.cluster_ca"`), []byte(`"pki.cluster_ca"]`), 1),
		"a bad escape":      bytes.Replace(data, []byte(`kubelet.service`), []byte(`kubelet\q`), 1),
	} {
		_, _, err1, err2 := decodeBoth(t, bad)
		if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
			t.Errorf("%s: in parts %v, in one pass %v", name, err1, err2)
		}
	}
	if !strings.Contains(string(Encode(parts)), "n000300") {
		t.Error("the last resource is missing")
	}
}
