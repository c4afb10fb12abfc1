package state

import (
	"crypto/rand"
	"encoding/hex"
)

// NewLineage returns a fresh lineage: 128 random bits formatted like a UUID
// (version 4). A lineage is fixed when a state is first created and never
// changes, so two files with different lineages are never the same cluster.
func NewLineage() string {
	var b [16]byte
	// crypto/rand.Read never fails (it aborts the program if the system
	// random source is broken), so there is no error to handle.
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:36], b[10:16])
	return string(s[:])
}
