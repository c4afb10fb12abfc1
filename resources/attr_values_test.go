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
			sha256Hex(text) // the hashing itself: SHA256Hex remembers the answer
		}
	}).AllocedBytesPerOp()
	if bytes > 512 {
		t.Errorf("SHA256Hex of %d bytes allocates %d bytes, want its result and the hash's state", len(text), bytes)
	}
}

// TestSHA256HexHashesARepeatedTextOnce: a plan hashes each service's files
// twice, and the files every worker has alike once per worker; a text
// hashed lately is hashed no more, whichever string holds it, and a text
// too long to keep is hashed each time.
func TestSHA256HexHashesARepeatedTextOnce(t *testing.T) {
	shared := strings.Repeat("kube-proxy kubeconfig ", 100)
	before := recentDigests.Computed()
	for i := range 1000 {
		own := fmt.Sprintf("kubelet.conf of w%05d", i)
		for range 2 {
			SHA256Hex(own)
			SHA256Hex(strings.Clone(shared))
		}
	}
	if n := recentDigests.Computed() - before; n > 1000+1000/256+1 {
		t.Errorf("%d sha256 computed for 1,000 texts hashed twice and one shared by all: want about 1,004", n)
	}
	long := strings.Repeat("x", maxRememberedText+1)
	if SHA256Hex(long) != sha256Hex(long) || SHA256Hex("abc") != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Error("wrong digest")
	}
}
