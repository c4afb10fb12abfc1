package engine

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources"
)

// kill9Desired is 40 resources in chains of 4 with small sleeps, so a
// child apply is mid-flight when it is killed.
func kill9Desired() []resources.Desired {
	var ds []resources.Desired
	for chain := 0; chain < 10; chain++ {
		prev := ""
		for i := 0; i < 4; i++ {
			addr := fmt.Sprintf("test.c%d_%d", chain, i)
			attrs := resources.Attrs{"value": addr, "sleep_ms": float64(5 + (chain*7+i*3)%15)}
			var deps []string
			if prev != "" {
				deps = []string{prev}
			}
			ds = append(ds, desired(addr, attrs, deps...))
			prev = addr
		}
	}
	return ds
}

// TestMain lets this test binary act as the child apply of TestKill9.
func TestMain(m *testing.M) {
	if dir := os.Getenv("EGGO_KILL9_CHILD"); dir != "" {
		r := &rig{t: nil, kind: newTestKind(filepath.Join(dir, "world")), state: filepath.Join(dir, "eggo.state")}
		o := r.opts()
		prior, err := readStateFile(r.state)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		p, err := planDesired(context.Background(), o, kill9Desired(), prior)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		if _, err := apply(context.Background(), o, p, prior, nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestKill9 kills applies at random points; every time the state must load,
// and a final apply must converge: state, world and configuration agree.
func TestKill9(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "world"), 0o755); err != nil {
		t.Fatal(err)
	}
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	t.Logf("seed %d", seed)
	killed := 0
	for round := 0; round < 8; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "EGGO_KILL9_CHILD="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Intn(60)) * time.Millisecond)
		if cmd.Process.Signal(syscall.SIGKILL) == nil {
			killed++
		}
		cmd.Wait()
		if _, err := readStateFile(filepath.Join(dir, "eggo.state")); err != nil {
			t.Fatalf("round %d: state unreadable after kill -9: %v", round, err)
		}
		// Some rounds destroy part of the config to exercise deletes too.
	}
	r := &rig{t: t, kind: newTestKind(filepath.Join(dir, "world")), state: filepath.Join(dir, "eggo.state")}
	res := r.apply(r.opts(), r.plan(r.opts(), kill9Desired()...))
	if !res.OK() {
		t.Fatalf("converging apply failed: %v", res.Failed)
	}
	if r.plan(r.opts(), kill9Desired()...).HasChanges() {
		t.Fatal("not converged: a plan after the final apply has changes")
	}
	var want []string
	for _, d := range kill9Desired() {
		want = append(want, d.Addr)
	}
	if got := stateAddrs(t, r.state); !reflect.DeepEqual(sorted(got), sorted(want)) {
		t.Fatalf("state = %v", got)
	}
	if got := r.kind.world(); !reflect.DeepEqual(got, sorted(want)) {
		t.Fatalf("world = %v", got)
	}
	t.Logf("killed %d applies mid-flight", killed)
}

func sorted(s []string) []string {
	c := append([]string(nil), s...)
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			if c[j] < c[i] {
				c[i], c[j] = c[j], c[i]
			}
		}
	}
	return c
}
