package e2e_test

import (
	"os"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"
)

// longestFirst names the cluster tests, the longest first (their times
// alone on two cores: the closing notes of issue 26). On a machine with
// two cores a cluster test is bound by CPU, so the run ends when the sum of
// the work is done — unless the longest test starts late and runs alone at
// the end. go test cannot be told an order: when the parallel tests are
// released they all wake at once and race for -parallel's slots (a run
// was seen to start the two shortest first). So clusters take a slot here,
// in this order (longest processing time first); a test not named runs
// after the named ones.
var longestFirst = []string{
	"TestKubernetesOnTestbed",
	"TestKubernetesPodsOnTestbed",
	"TestEtcdStaticPodsOnTestbed",
	"TestPodNetworkOnTestbed",
	"TestOldEggoClusterUpgradeOnTestbed",
}

// clusters is how many cluster tests run at once: EGGO_E2E_CLUSTERS (or 2),
// less one for each file in the directory EGGO_E2E_SLOTS_HELD names —
// make test's other chain (the GitOps test, then the race step) holds one
// while it runs, and gives it to these tests when it ends — but never less
// than one. go test's own -parallel must be higher (make
// test gives it more), or it picks which tests may wait here.
var clusters = newSlots(envInt("EGGO_E2E_CLUSTERS", 2), longestFirst, 300*time.Millisecond, heldIn(os.Getenv("EGGO_E2E_SLOTS_HELD")))

// heldIn counts the files in dir: the slots held outside this process.
func heldIn(dir string) func() int {
	return func() int {
		if dir == "" {
			return 0
		}
		es, _ := os.ReadDir(dir)
		return len(es)
	}
}

// parallel marks t parallel and waits for a cluster slot, in longestFirst's
// order; the slot is given back when t ends.
func parallel(t *testing.T) {
	t.Helper()
	t.Parallel()
	started := time.Now()
	t.Cleanup(clusters.acquire(t.Name()))
	if d := time.Since(started); d > time.Second {
		t.Logf("waited %s for a cluster slot", d.Round(time.Second))
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// slots hands out n slots by rank, less those held outside (held). The
// first request opens a short gathering window — every test released
// together arrives in it — and only then are slots given, lowest rank
// first; after it, a freed slot goes to the best-ranked waiter at once, and
// a slot given back from outside within a poll.
type slots struct {
	mu       sync.Mutex
	n, used  int
	held     func() int
	rank     func(name string) int
	gather   time.Duration
	opened   bool // the first request came
	gathered bool // its window passed
	waiting  []*slotWaiter
}

type slotWaiter struct {
	rank  int
	ready chan struct{}
}

// slotPoll is how often slots held outside are counted again.
const slotPoll = 2 * time.Second

func newSlots(n int, order []string, gather time.Duration, held func() int) *slots {
	return &slots{n: n, held: held, gather: gather, rank: func(name string) int {
		if i := slices.Index(order, name); i >= 0 {
			return i
		}
		return len(order)
	}}
}

// acquire blocks until name has a slot, and returns the function that
// gives it back.
func (s *slots) acquire(name string) (release func()) {
	w := &slotWaiter{rank: s.rank(name), ready: make(chan struct{})}
	s.mu.Lock()
	s.waiting = append(s.waiting, w)
	if !s.opened {
		s.opened = true
		go func() {
			time.Sleep(s.gather)
			for {
				s.mu.Lock()
				s.gathered = true
				s.grantLocked()
				s.mu.Unlock()
				time.Sleep(slotPoll)
			}
		}()
	}
	s.grantLocked()
	s.mu.Unlock()
	<-w.ready
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.used--
			s.grantLocked()
			s.mu.Unlock()
		})
	}
}

func (s *slots) grantLocked() {
	if !s.gathered || len(s.waiting) == 0 {
		return
	}
	avail := max(1, s.n-s.held())
	sort.SliceStable(s.waiting, func(i, j int) bool { return s.waiting[i].rank < s.waiting[j].rank })
	for s.used < avail && len(s.waiting) > 0 {
		w := s.waiting[0]
		s.waiting = s.waiting[1:]
		s.used++
		close(w.ready)
	}
}

// TestSlotsGoLongestFirst: tests arriving in the reverse of their rank
// inside the gathering window get the slots best rank first, and a freed
// slot goes to the best-ranked waiter, not to the first to arrive.
func TestSlotsGoLongestFirst(t *testing.T) {
	s := newSlots(1, []string{"a", "b", "c", "d"}, 200*time.Millisecond, func() int { return 0 })
	order := make(chan string, 4)
	var wg sync.WaitGroup
	for _, name := range []string{"d", "c", "b", "a"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release := s.acquire(name)
			order <- name
			time.Sleep(20 * time.Millisecond)
			release()
		}()
		time.Sleep(10 * time.Millisecond) // arrive in this order
	}
	wg.Wait()
	close(order)
	var got []string
	for n := range order {
		got = append(got, n)
	}
	if want := []string{"a", "b", "c", "d"}; !slices.Equal(got, want) {
		t.Errorf("slots given in the order %v, want %v", got, want)
	}
}

// TestSlotsHeldOutsideComeBack: of three slots, one held outside leaves
// two; when it is given back, the third waiter starts without any slot
// being freed here; and however many are held outside, one is left.
func TestSlotsHeldOutsideComeBack(t *testing.T) {
	var mu sync.Mutex
	held := 1
	s := newSlots(3, nil, 10*time.Millisecond, func() int { mu.Lock(); defer mu.Unlock(); return held })
	started := make(chan string, 3)
	for _, name := range []string{"a", "b", "c"} {
		go func() { s.acquire(name); started <- name }()
	}
	for range 2 {
		<-started
	}
	select {
	case n := <-started:
		t.Fatalf("%s started with one of three slots held outside", n)
	case <-time.After(slotPoll + time.Second):
	}
	mu.Lock()
	held = 0
	mu.Unlock()
	select {
	case <-started:
	case <-time.After(2*slotPoll + time.Second):
		t.Fatal("the slot given back from outside was not used")
	}

	starved := newSlots(2, nil, 10*time.Millisecond, func() int { return 5 })
	done := make(chan struct{})
	go func() { starved.acquire("x"); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("with every slot held outside, none is left here")
	}
}
