package kube

import (
	"maps"

	"github.com/eggo-project/eggo/resources"
)

// recordedService is what state keeps of a service: its recorded form
// (recordedForm), with the directories eggo created and the data it owns
// carried over from prior (empty on a first install).
func recordedService(desired, prior resources.Attrs) resources.Attrs {
	rec := recordedForm(desired)
	for _, k := range []string{svcCreatedDirs, svcOwnedData} {
		if v, ok := prior[k]; ok {
			rec[k] = v
		} else if _, ok := rec[k]; !ok {
			rec[k] = []any{}
		}
	}
	return rec
}

// withCreatedDirs is the record rec with the directories another record of
// the same service, also, says eggo created (an undone attempt's).
func withCreatedDirs(rec, also resources.Attrs) resources.Attrs {
	out := maps.Clone(rec)
	out[svcCreatedDirs] = resources.Normalize(resources.SortedUnion(resources.StringList(rec[svcCreatedDirs]), resources.StringList(also[svcCreatedDirs])))
	return out
}

// recordedForm is a service's attributes as state keeps them: everything
// but the health check and the file sources, which become the files'
// modes and their digests as written. The sources may hold keys (the
// certificates' own records keep those, sealed) and are the same text on
// every node of a role, so keeping them would put a node's keys into the
// file twice more and grow every node's record by kilobytes for nothing a
// plan needs: the digests say whether a file must be written again.
func recordedForm(desired resources.Attrs) resources.Attrs {
	return recordedFormOf(desired, parseService(desired))
}

// recordedFormOf is recordedForm of desired, parsed already as s.
func recordedFormOf(desired resources.Attrs, s service) resources.Attrs {
	digests, _ := s.digests()
	return recordedFormDigests(desired, s, digests)
}

// recordedFormDigests is recordedFormOf with s's digests made already (a
// plan needs them to compare before it knows whether a record is needed).
func recordedFormDigests(desired resources.Attrs, s service, digests map[string]any) resources.Attrs {
	rec := make(resources.Attrs, len(desired)+3)
	for k, v := range desired {
		rec[k] = v
	}
	rec[svcDigests] = digests
	modes := make(map[string]any, len(s.Files))
	for _, f := range s.Files {
		modes[f.Path] = f.Mode
	}
	// Under a name of their own: "files" is sensitive (its sources carry
	// keys), and a record of it would be sealed for nothing.
	rec[svcFileModes] = modes
	delete(rec, svcFiles)
	delete(rec, svcLive)
	// Health matters only when the unit (re)starts, and then the wanted
	// check runs: a record of it would only make a changed check an
	// update of every node that does nothing.
	delete(rec, svcHealth)
	delete(rec, svcHealthTimeout)
	return rec
}
