package command

import (
	"runtime/debug"
	"testing"
)

func TestGCPercentUnlessGOGCIsSet(t *testing.T) {
	was := debug.SetGCPercent(100)
	defer debug.SetGCPercent(was)

	tuneGC(Streams{Env: []string{"HOME=/root"}})
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("without GOGC: GC percent %d, want %d", got, gcPercent)
	}
	tuneGC(Streams{Env: []string{"GOGC=50"}})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set: GC percent changed to %d; the user's choice must stand", got)
	}
}
