package state

import (
	"bytes"
	"fmt"
)

// BumpSerial sets next.Serial for writing next after prev, the state last
// read or written: prev.Serial+1 when next's content (everything but the
// serial) differs from prev's, prev.Serial when it does not, so the serial
// counts real changes only. A nil prev means there was no state: next.Serial
// becomes 1. It reports whether the content changed, and refuses a next of
// another lineage, which would be a different cluster's state.
//
// It encodes both states, so it costs about two Encodes.
func BumpSerial(prev, next *State) (changed bool, err error) {
	if prev == nil {
		next.Serial = 1
		return true, nil
	}
	if prev.Lineage != next.Lineage {
		return false, fmt.Errorf("state lineage changed from %s to %s: this is a different state, not a new version of it", prev.Lineage, next.Lineage)
	}
	same, err := sameContent(prev, next)
	if err != nil {
		return false, err
	}
	next.Serial = prev.Serial
	if !same {
		next.Serial++
	}
	return !same, nil
}

// sameContent compares the encodings of a and b with their serials set
// equal: the encoding is what "content" means for the file.
func sameContent(a, b *State) (bool, error) {
	ac, bc := *a, *b
	ac.Serial, bc.Serial = 0, 0
	ab, err := Marshal(&ac)
	if err != nil {
		return false, err
	}
	bb, err := Marshal(&bc)
	if err != nil {
		return false, err
	}
	return bytes.Equal(ab, bb), nil
}
