package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLockFileContent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eggo.state")
	l, err := AcquireLock(path, "apply")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if l.Path() != path+".lock" {
		t.Errorf("lock path %s, want %s.lock", l.Path(), path)
	}
	var raw map[string]any
	if err := json.Unmarshal(readBytes(t, l.Path()), &raw); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if raw["id"] != l.Info.ID || len(l.Info.ID) != 32 ||
		!strings.HasSuffix(raw["owner"].(string), "@"+host) ||
		raw["pid"] != float64(os.Getpid()) || raw["operation"] != "apply" {
		t.Errorf("lock file content %v", raw)
	}
	created, err := time.Parse(time.RFC3339, raw["created"].(string))
	if err != nil || time.Since(created) > time.Minute || !strings.HasSuffix(raw["created"].(string), "Z") {
		t.Errorf("created %v is not a recent RFC 3339 UTC time (%v)", raw["created"], err)
	}
}

func TestLockContention(t *testing.T) {
	st := NewStore(filepath.Join(t.TempDir(), "eggo.state"))
	first, err := st.Lock("apply")
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Lock("destroy")
	var locked *LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("second lock: got %v, want a LockedError", err)
	}
	h := first.Info
	want := fmt.Sprintf("%s is locked by %s (pid %d, apply, since %s; lock ID %s): if that run is dead, run `eggo force-unlock %s`",
		st.Path(), h.Owner, h.PID, h.Created.Format(time.RFC3339), h.ID, h.ID)
	if err.Error() != want {
		t.Errorf("message:\n got %s\nwant %s", err, want)
	}
	if locked.Stale {
		t.Error("a lock held by this live process was called stale")
	}

	if err := first.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(st.LockPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock file still there after Unlock: %v", err)
	}
	second, err := st.Lock("destroy")
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	second.Unlock()
}

// Exactly one of many simultaneous lockers wins.
func TestLockRace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eggo.state")
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, lost := 0, 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := AcquireLock(path, "apply")
			mu.Lock()
			defer mu.Unlock()
			var locked *LockedError
			switch {
			case err == nil:
				won++
			case errors.As(err, &locked) && locked.ReadErr == nil:
				lost++
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || lost != 7 {
		t.Errorf("%d won and %d lost, want 1 and 7", won, lost)
	}
}

func TestForceUnlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eggo.state")
	l, err := AcquireLock(path, "apply")
	if err != nil {
		t.Fatal(err)
	}
	err = ForceUnlock(path, "0123abcd")
	if err == nil || !strings.Contains(err.Error(), "not 0123abcd") || !strings.Contains(err.Error(), l.Info.ID) {
		t.Fatalf("wrong ID: got %v, want an error naming both IDs", err)
	}
	if _, err := os.Stat(l.Path()); err != nil {
		t.Fatalf("a force-unlock with the wrong ID removed the lock: %v", err)
	}
	if err := ForceUnlock(path, l.Info.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("force-unlock with the right ID left the lock")
	}
	if err := ForceUnlock(path, l.Info.ID); err == nil || !strings.Contains(err.Error(), "is not locked") {
		t.Errorf("force-unlock of an unlocked state: got %v", err)
	}
}

// After a force-unlock another run may lock; the first run's late Unlock
// must leave that run's lock alone.
func TestUnlockLeavesAnotherRunsLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eggo.state")
	old, err := AcquireLock(path, "apply")
	if err != nil {
		t.Fatal(err)
	}
	if err := ForceUnlock(path, old.Info.ID); err != nil {
		t.Fatal(err)
	}
	current, err := AcquireLock(path, "apply")
	if err != nil {
		t.Fatal(err)
	}
	err = old.Unlock()
	if err == nil || !strings.Contains(err.Error(), current.Info.ID) {
		t.Fatalf("late unlock: got %v, want an error naming the new holder's ID", err)
	}
	held, err := readLockInfo(path + ".lock")
	if err != nil || held.ID != current.Info.ID {
		t.Fatalf("the new run's lock is gone or changed: %+v %v", held, err)
	}
	if err := current.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := current.Unlock(); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("second unlock: got %v", err)
	}
}

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	return cmd.Process.Pid
}

func TestStaleLockReportedNotRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "eggo.state")
	pid := deadPID(t)
	holder := LockInfo{ID: "feedface", Owner: "ops@" + hostname(), PID: pid, Operation: "apply", Created: time.Now().UTC()}
	data, _ := json.Marshal(holder)
	writeFile(t, dir, "eggo.state.lock", string(data))

	_, err := AcquireLock(path, "plan")
	var locked *LockedError
	if !errors.As(err, &locked) || !locked.Stale {
		t.Fatalf("got %v, want a stale LockedError", err)
	}
	want := fmt.Sprintf("pid %d no longer runs on this host, so the lock looks stale: run `eggo force-unlock feedface` to remove it", pid)
	if !strings.Contains(err.Error(), want) {
		t.Errorf("message %q lacks %q", err, want)
	}
	if held, err := readLockInfo(path + ".lock"); err != nil || held.ID != "feedface" {
		t.Fatalf("the stale lock was touched: %+v %v", held, err)
	}

	// The same dead pid on another host says nothing about that host.
	holder.Owner = "ops@some-other-host.example"
	data, _ = json.Marshal(holder)
	writeFile(t, dir, "eggo.state.lock", string(data))
	if _, err := AcquireLock(path, "plan"); !errors.As(err, &locked) || locked.Stale {
		t.Errorf("a lock from another host was called stale: %v", err)
	}
}

func TestUnreadableLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "eggo.state")
	writeFile(t, dir, "eggo.state.lock", "not json")
	_, err := AcquireLock(path, "apply")
	var locked *LockedError
	if !errors.As(err, &locked) || locked.ReadErr == nil {
		t.Fatalf("got %v, want a LockedError with a read error", err)
	}
	if !strings.Contains(err.Error(), "delete "+path+".lock") {
		t.Errorf("message should say how to get out: %v", err)
	}
	if err := ForceUnlock(path, "anything"); err == nil || !strings.Contains(err.Error(), "delete "+path+".lock by hand") {
		t.Errorf("force-unlock of an unreadable lock: got %v", err)
	}
}
