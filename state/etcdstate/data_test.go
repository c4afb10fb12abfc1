package etcdstate

import (
	"errors"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/eggo-project/eggo/internal/harness/etcdtest"
)

func TestKeyJoinsPrefixAndClusterWithOneSlash(t *testing.T) {
	for prefix, want := range map[string]string{
		"/eggo/": "/eggo/demo", "/eggo": "/eggo/demo", "/eggo//": "/eggo/demo", "": "/demo",
	} {
		if got := (Config{Prefix: prefix, Cluster: "demo"}).key(); got != want {
			t.Errorf("prefix %q: key %q, want %q", prefix, got, want)
		}
	}
}

func TestPutGetRoundTripWithRevisions(t *testing.T) {
	srv := etcdtest.Start(t)
	s := open(t, config(srv, "demo"))
	if s.Key() != "/eggo/demo" {
		t.Fatalf("Key() = %q", s.Key())
	}
	if want := "etcd key /eggo/demo at " + srv.Endpoint; s.Describe() != want {
		t.Fatalf("Describe() = %q, want %q", s.Describe(), want)
	}

	_, _, err := s.Get(bg())
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "/eggo/demo") {
		t.Fatalf("Get of an absent state: %v, want fs.ErrNotExist naming the key", err)
	}

	rev1, err := s.Put(bg(), []byte(`{"serial":1}`), 0)
	if err != nil {
		t.Fatalf("first Put: %v", err)
	}
	data, rev, err := s.Get(bg())
	if err != nil || string(data) != `{"serial":1}` || rev != rev1 {
		t.Fatalf("Get = %q, %d, %v; want the first state at revision %d", data, rev, err, rev1)
	}

	rev2, err := s.Put(bg(), []byte(`{"serial":2}`), rev1)
	if err != nil {
		t.Fatalf("second Put: %v", err)
	}
	if rev2 <= rev1 {
		t.Fatalf("revision went from %d to %d", rev1, rev2)
	}
	data, rev, err = s.Get(bg())
	if err != nil || string(data) != `{"serial":2}` || rev != rev2 {
		t.Fatalf("Get = %q, %d, %v; want the second state at revision %d", data, rev, err, rev2)
	}

	// Another cluster under the same prefix is another key.
	other := open(t, config(srv, "demo2"))
	if _, _, err := other.Get(bg()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("cluster demo2 sees %v, want no state", err)
	}
}

func TestPutWithStaleRevisionIsRefusedAndWritesNothing(t *testing.T) {
	srv := etcdtest.Start(t)
	s := open(t, config(srv, "demo"))
	rev1, err := s.Put(bg(), []byte("one"), 0)
	if err != nil {
		t.Fatal(err)
	}
	rev2, err := s.Put(bg(), []byte("two"), rev1)
	if err != nil {
		t.Fatal(err)
	}

	_, err = s.Put(bg(), []byte("lost update"), rev1)
	var stale *StaleError
	if !errors.As(err, &stale) {
		t.Fatalf("Put at a stale revision: %v, want *StaleError", err)
	}
	if stale.Key != "/eggo/demo" || stale.Expected != rev1 || stale.Actual != rev2 {
		t.Fatalf("StaleError %+v, want key /eggo/demo expected %d actual %d", stale, rev1, rev2)
	}
	for _, want := range []string{"another run wrote the state", "nothing was written", "/eggo/demo"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if data, rev, _ := s.Get(bg()); string(data) != "two" || rev != rev2 {
		t.Fatalf("after the refused Put the state is %q at %d, want %q at %d", data, rev, "two", rev2)
	}

	// Delete checks the revision the same way.
	err = s.Delete(bg(), rev1)
	if !errors.As(err, &stale) || stale.Actual != rev2 {
		t.Fatalf("Delete at a stale revision: %v, want *StaleError", err)
	}
	if err := s.Delete(bg(), rev2); err != nil {
		t.Fatalf("Delete at the current revision: %v", err)
	}
	if _, _, err := s.Get(bg()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("after Delete: %v, want no state", err)
	}
}

func TestPutExpectingNoStateIsRefusedWhenOneExists(t *testing.T) {
	srv := etcdtest.Start(t)
	s := open(t, config(srv, "demo"))
	rev, err := s.Put(bg(), []byte("first"), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Put(bg(), []byte("second first"), 0)
	var stale *StaleError
	if !errors.As(err, &stale) || stale.Expected != 0 || stale.Actual != rev {
		t.Fatalf("Put with 0 over an existing state: %v, want *StaleError expected 0 actual %d", err, rev)
	}
	if data, _, _ := s.Get(bg()); string(data) != "first" {
		t.Fatalf("state is %q, want %q", data, "first")
	}
}

// Two runs read the same revision and write at once: exactly one wins,
// the other learns the winner's revision and the state is the winner's.
func TestRacingPutsFromTheSameReadExactlyOneWins(t *testing.T) {
	srv := etcdtest.Start(t)
	a := open(t, config(srv, "demo"))
	b := open(t, config(srv, "demo"))
	if _, err := a.Put(bg(), []byte("base"), 0); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 10; round++ {
		_, readRev, err := a.Get(bg())
		if err != nil {
			t.Fatal(err)
		}
		type result struct {
			data string
			rev  int64
			err  error
		}
		results := make([]result, 2)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, s := range []*Store{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				data := []string{"from a", "from b"}[i]
				newRev, err := s.Put(bg(), []byte(data), readRev)
				results[i] = result{data, newRev, err}
			}()
		}
		close(start)
		wg.Wait()

		var winners []result
		var stale *StaleError
		for _, r := range results {
			if r.err == nil {
				winners = append(winners, r)
			} else if !errors.As(r.err, &stale) {
				t.Fatalf("round %d: the losing Put failed with %v, want *StaleError", round, r.err)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("round %d: %d Puts succeeded from revision %d, want exactly 1: %+v", round, len(winners), readRev, results)
		}
		if stale.Actual != winners[0].rev || stale.Expected != readRev {
			t.Fatalf("round %d: loser saw %+v, want expected %d actual %d", round, stale, readRev, winners[0].rev)
		}
		data, got, err := a.Get(bg())
		if err != nil || string(data) != winners[0].data || got != winners[0].rev {
			t.Fatalf("round %d: state %q at %d (%v), want the winner's %q at %d", round, data, got, err, winners[0].data, winners[0].rev)
		}
	}
}
