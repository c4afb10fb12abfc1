package recent

import "testing"

// TestMemoAnswersAgainAndStaysBounded: an answer asked for again is not
// computed again, and a memo never holds more than its size.
func TestMemoAnswersAgainAndStaysBounded(t *testing.T) {
	m := Memo[int, int]{Size: 4}
	calls := 0
	square := func(k int) func() int { return func() int { calls++; return k * k } }
	for range 3 {
		if got := m.Get(3, square(3)); got != 9 {
			t.Fatalf("Get(3) = %d", got)
		}
	}
	if calls != 1 || m.Computed() != 1 {
		t.Errorf("3 asked three times: computed %d times (Computed %d), want once", calls, m.Computed())
	}
	for k := range 100 {
		if got := m.Get(k, square(k)); got != k*k {
			t.Fatalf("Get(%d) = %d", k, got)
		}
		if len(m.answers) > 4 {
			t.Fatalf("%d answers held, want at most 4", len(m.answers))
		}
	}
}
