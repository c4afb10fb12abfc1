//go:build !race

package state

import (
	"testing"
	"time"
)

// TestLargeStateIsFast holds the promise the engine relies on: a state of
// 30,000 resources encodes and reads back in well under a second. (Skipped
// under -race, which slows everything several times over.)
func TestLargeStateIsFast(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	s := bigState(30000)
	start := time.Now()
	data := Encode(s)
	encoded := time.Since(start)
	start = time.Now()
	if _, err := Decode(data, "big.state"); err != nil {
		t.Fatal(err)
	}
	decoded := time.Since(start)
	t.Logf("30,000 resources, %d MB: encode %v, decode %v", len(data)>>20, encoded, decoded)
	// Generous bound: the machine running tests may be shared and busy.
	if encoded+decoded > 2*time.Second {
		t.Errorf("encode %v + decode %v of 30,000 resources: too slow", encoded, decoded)
	}
}
