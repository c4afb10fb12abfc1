package config

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"sort"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// hash is the configuration's fingerprint: every source file, every file
// read through file()/templatefile(), and every variable's resolved value
// (values from -var and the environment are not in any file). Each piece
// is length-prefixed so that moving bytes between pieces changes the sum.
func (l *loader) hash() string {
	h := sha256.New()
	writeSorted(h, "file", l.sources)
	writeSorted(h, "read", l.readFiles)
	for _, v := range l.variables {
		val, _ := v.value.UnmarkDeep()
		b, err := ctyjson.Marshal(val, cty.DynamicPseudoType)
		if err != nil {
			b = []byte(val.GoString())
		}
		writePiece(h, "var")
		writePiece(h, v.name)
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writeSorted(h hash.Hash, tag string, m map[string][]byte) {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		writePiece(h, tag)
		writePiece(h, n)
		h.Write(m[n])
	}
}

func writePiece(h hash.Hash, s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}
