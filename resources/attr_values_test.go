package resources

import (
	"crypto/sha256"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestSortedUnion(t *testing.T) {
	if got := SortedUnion([]string{"b", "a", "b"}, []string{"c", "a"}); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("union = %q", got)
	}
	if got := SortedUnion(nil, nil); got == nil || len(got) != 0 {
		t.Errorf("empty union = %#v, want an empty list (recorded as [], not null)", got)
	}
}

// TestSHA256HexAllocatesOnlyItsResult: hashing a text costs its result
// and the hash's state, not a copy of the text (a plan hashes every
// service file of every node).
func TestSHA256HexAllocatesOnlyItsResult(t *testing.T) {
	text := strings.Repeat("ExecStart=/usr/local/bin/kubelet --config=/etc/kubernetes/kubelet/config.yaml\n", 200)
	if got := SHA256Hex(text); got != fmt.Sprintf("%x", sha256.Sum256([]byte(text))) {
		t.Fatalf("SHA256Hex = %s", got)
	}
	if got := SHA256Hex(""); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatalf("SHA256Hex(\"\") = %s", got)
	}
	bytes := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			SHA256Hex(text)
		}
	}).AllocedBytesPerOp()
	if bytes > 512 {
		t.Errorf("SHA256Hex of %d bytes allocates %d bytes, want its result and the hash's state", len(text), bytes)
	}
}
