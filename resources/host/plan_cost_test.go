package host

import (
	"fmt"
	"slices"
	"testing"
)

// TestDiffOfTheSameFilesBuildsNoMap: a host whose recorded files are the
// desired ones, both sorted by path (the usual plan), is compared file
// by file, with no map of the recorded files built to look them up (one
// for every host of a thousand-node plan before); the answer is the
// map's.
func TestDiffOfTheSameFilesBuildsNoMap(t *testing.T) {
	var prior, desired []bundleFile
	for i := range 40 {
		f := bundleFile{Path: fmt.Sprintf("/opt/eggo/bin/f%02d", i), SHA256: "aa", Mode: "0755"}
		prior = append(prior, f)
		if i == 3 {
			f.SHA256 = "bb"
		}
		if i == 5 {
			f.Mode = "0644"
		}
		desired = append(desired, f)
	}
	prior[7].Drift = "modified"
	prior[8].Drift = "missing"
	desired[8].Mode = "0700"
	d := diffFiles(prior, desired)
	if !slices.Equal(d.changed, []string{"/opt/eggo/bin/f03"}) || !slices.Equal(d.modeChanged, []string{"/opt/eggo/bin/f05"}) ||
		!slices.Equal(d.drifted, []string{"/opt/eggo/bin/f08 (missing)"}) || d.added != nil || d.removed != nil {
		t.Fatalf("diff = %+v", d)
	}
	same := slices.Clone(prior)
	for i := range same {
		same[i].Drift = ""
	}
	if allocs := testing.AllocsPerRun(10, func() { diffFiles(prior, same) }); allocs > 0 {
		t.Errorf("%.0f allocations to compare a host's files with the same ones: want none", allocs)
	}
	// Out of order, the answer is still the same files' answer.
	rev := slices.Clone(desired)
	slices.Reverse(rev)
	if r := diffFiles(prior, rev); !slices.Equal(r.changed, d.changed) || !slices.Equal(r.modeChanged, d.modeChanged) || !slices.Equal(r.drifted, d.drifted) {
		t.Errorf("out of order: %+v, want %+v", r, d)
	}
}
