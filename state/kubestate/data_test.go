package kubestate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStateInSecrets stores states in Secrets of a real kube-apiserver.
func TestStateInSecrets(t *testing.T) {
	e := newEnv(t)
	t.Run("round trip", e.testRoundTrip)
	t.Run("a state larger than a chunk", e.testChunks)
	t.Run("a stale write is refused", e.testStale)
	t.Run("a Secret changed by hand is refused", e.testTampered)
	t.Run("someone's Secret at the head's name is refused, not read as no state", e.testForeignHead)
	t.Run("a head that lost its labels is refused, not read as no state", e.testLostLabels)
	t.Run("Secrets with the chunks' labels or names that are not eggo's are left", e.testForeignChunks)
	t.Run("secrets are sealed in the Secrets", e.testSealed)
	t.Run("errors name the file, the namespace and the permission", e.testOpenErrors)
}

func (e *env) testRoundTrip(t *testing.T) {
	c := e.config(t, "demo")
	s := open(t, c)
	if want := fmt.Sprintf("kubernetes secret %s/eggo-state-demo (%s)", c.Namespace, e.srv.URL); s.Describe() != want {
		t.Fatalf("Describe() = %q, want %q", s.Describe(), want)
	}
	_, _, err := s.Get(bg())
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "eggo-state-demo") {
		t.Fatalf("Get of an absent state: %v, want fs.ErrNotExist naming the Secret", err)
	}
	rev1, err := s.Put(bg(), []byte(`{"serial":1}`), "")
	if err != nil {
		t.Fatalf("first Put: %v", err)
	}
	data, rev, err := s.Get(bg())
	if err != nil || string(data) != `{"serial":1}` || rev != rev1 {
		t.Fatalf("Get = %q, %s, %v; want the first state at %s", data, rev, err, rev1)
	}
	rev2, err := s.Put(bg(), []byte(`{"serial":2}`), rev1)
	if err != nil {
		t.Fatalf("second Put: %v", err)
	}
	if data, rev, err = s.Get(bg()); err != nil || string(data) != `{"serial":2}` || rev != rev2 {
		t.Fatalf("Get = %q, %s, %v; want the second state at %s", data, rev, err, rev2)
	}
	secrets := e.secrets(t, s)
	if len(secrets) != 1 {
		t.Fatalf("%d Secrets for a small state, want the head alone", len(secrets))
	}
	head := secrets[0]
	if head.Name != "eggo-state-demo" || head.Type != "eggo.io/state" ||
		head.Labels["app.kubernetes.io/managed-by"] != "eggo" || head.Labels["eggo.io/cluster"] != "demo" ||
		head.Annotations["eggo.io/chunks"] != "0" || len(head.Annotations["eggo.io/sha256"]) != 64 {
		t.Fatalf("head Secret %s, type %s, labels %v, annotations %v", head.Name, head.Type, head.Labels, head.Annotations)
	}
	if w := head.Annotations["eggo.io/written-by"]; !strings.Contains(w, fmt.Sprintf("(pid %d)", os.Getpid())) { // closed: "pid 12" is in "pid 1234"
		t.Errorf("written-by %q does not name this process", w)
	}
	// Another cluster in the namespace is another state.
	other := open(t, e.config(t, "demo2"))
	if _, _, err := other.Get(bg()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("cluster demo2 sees %v, want no state", err)
	}
}

// randomState is n bytes that do not compress, as a sealed state's
// ciphertexts would not.
func randomState(seed int64, n int) []byte {
	b := make([]byte, n)
	rand.New(rand.NewSource(seed)).Read(b)
	return b
}

// chunkNames lists the chunk Secrets there are, sorted.
func (e *env) chunkNames(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	for _, sec := range e.secrets(t, s) {
		if sec.Labels["eggo.io/state-part"] == "chunk" {
			if n := len(sec.Data["chunk"]); n > DefaultChunkSize {
				t.Errorf("chunk %s holds %d bytes, more than %d", sec.Name, n, DefaultChunkSize)
			}
			out = append(out, sec.Name)
		}
	}
	slices.Sort(out)
	return out
}

func (e *env) testChunks(t *testing.T) {
	s := open(t, e.config(t, "big"))
	big := randomState(1, 3<<20)
	rev, err := s.Put(bg(), big, "")
	if err != nil {
		t.Fatalf("Put of 3 MiB: %v", err)
	}
	got, gotRev, err := s.Get(bg())
	if err != nil || !bytes.Equal(got, big) || gotRev != rev {
		t.Fatalf("Get of the 3 MiB state: %d bytes, identical %v, %v", len(got), bytes.Equal(got, big), err)
	}
	first := e.chunkNames(t, s)
	if len(first) != 4 { // 3 MiB in chunks of 768 KiB
		t.Fatalf("chunks %v, want 4", first)
	}

	// A smaller state fits the head: the chunks go.
	if rev, err = s.Put(bg(), []byte("small"), rev); err != nil {
		t.Fatal(err)
	}
	if left := e.chunkNames(t, s); len(left) != 0 {
		t.Fatalf("after a small write, chunks %v remain", left)
	}
	if got, _, err := s.Get(bg()); err != nil || string(got) != "small" {
		t.Fatalf("Get = %q, %v", got, err)
	}

	// From one large state to another: only the new one's chunks remain.
	if rev, err = s.Put(bg(), randomState(2, 2<<20), rev); err != nil {
		t.Fatal(err)
	}
	second := e.chunkNames(t, s)
	big3 := randomState(3, 2<<20+5)
	if _, err = s.Put(bg(), big3, rev); err != nil {
		t.Fatal(err)
	}
	third := e.chunkNames(t, s)
	if len(third) != 3 || slices.ContainsFunc(third, func(n string) bool { return slices.Contains(second, n) }) {
		t.Fatalf("chunks after the third large write: %v (the second's were %v)", third, second)
	}
	if got, _, err := s.Get(bg()); err != nil || !bytes.Equal(got, big3) {
		t.Fatalf("Get after the third write: identical %v, %v", bytes.Equal(got, big3), err)
	}
}

func (e *env) testStale(t *testing.T) {
	c := e.config(t, "demo")
	a, b := open(t, c), open(t, c)
	base, err := a.Put(bg(), []byte("base"), "")
	if err != nil {
		t.Fatal(err)
	}
	won, err := a.Put(bg(), []byte("from a"), base)
	if err != nil {
		t.Fatal(err)
	}
	// b read base too, and writes a large state on it: refused.
	_, err = b.Put(bg(), randomState(4, 1<<20), base)
	var stale *StaleError
	if !errors.As(err, &stale) || stale.Expected != base || stale.Actual != won {
		t.Fatalf("Put on a replaced version: %v, want *StaleError expected %s actual %s", err, base, won)
	}
	wantIn(t, err.Error(), "another run wrote the state", "nothing was written", "resourceVersion "+won,
		fmt.Sprintf("pid %d", os.Getpid()), a.Describe())
	if data, rev, _ := a.Get(bg()); string(data) != "from a" || rev != won {
		t.Fatalf("after the refused Put the state is %q at %s, want a's", data, rev)
	}
	if left := e.chunkNames(t, a); len(left) != 0 {
		t.Fatalf("the refused write left its chunks: %v", left)
	}
	// Expecting no state where there is one is stale too.
	if _, err := b.Put(bg(), []byte("second first"), ""); !errors.As(err, &stale) || stale.Expected != "" || stale.Actual != won {
		t.Fatalf("Put expecting no state: %v", err)
	}
	if err := b.Delete(bg(), base); !errors.As(err, &stale) {
		t.Fatalf("Delete at a replaced version: %v", err)
	}
	if err := a.Delete(bg(), won); err != nil {
		t.Fatalf("Delete at the current version: %v", err)
	}
	if _, _, err := a.Get(bg()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("after Delete: %v", err)
	}
	if _, err := b.Put(bg(), []byte("from b"), base); !errors.As(err, &stale) || !strings.Contains(err.Error(), "deleted the state") {
		t.Fatalf("Put on a deleted state: %v", err)
	}
}

func (e *env) testTampered(t *testing.T) {
	s := open(t, e.config(t, "demo"))
	if _, err := s.Put(bg(), randomState(5, 2<<20), ""); err != nil {
		t.Fatal(err)
	}
	chunks := e.chunkNames(t, s)
	secrets := e.srv.Client.CoreV1().Secrets(s.Namespace())
	c, err := secrets.Get(bg(), chunks[1], metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.Data["chunk"][100] ^= 0xff
	if _, err := secrets.Update(bg(), c, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Get(bg())
	if err == nil {
		t.Fatal("a state with a changed chunk was read")
	}
	wantIn(t, err.Error(), "sha256", "changed by hand", s.Describe())

	if err := secrets.Delete(bg(), chunks[2], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Get(bg())
	if err == nil {
		t.Fatal("a state missing a chunk was read")
	}
	wantIn(t, err.Error(), "chunk 3 of 3", chunks[2], "is missing")
}
