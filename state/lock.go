package state

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"
)

// LockInfo is the content of a lock file: who holds the state and why.
type LockInfo struct {
	ID        string    `json:"id"`
	Owner     string    `json:"owner"` // user@hostname
	PID       int       `json:"pid"`
	Operation string    `json:"operation"` // "apply", "destroy", …
	Created   time.Time `json:"created"`   // RFC 3339, UTC, whole seconds
}

// Lock is a held lock on a state file (the file PATH.lock, created with
// O_EXCL so that exactly one command holds it).
type Lock struct {
	path string
	Info LockInfo
}

// Path is the lock file.
func (l *Lock) Path() string { return l.path }

// Lock locks the store's state file for operation; see AcquireLock.
func (st *Store) Lock(operation string) (*Lock, error) { return AcquireLock(st.path, operation) }

// ForceUnlock removes the store's lock if its ID is id; see ForceUnlock.
func (st *Store) ForceUnlock(id string) error { return ForceUnlock(st.path, id) }

// lockAttempts bounds how often AcquireLock retries when the lock it found
// vanished before it could read the holder (the holder just unlocked).
const lockAttempts = 3

// AcquireLock locks the state file at statePath for operation. If another
// run holds it, the error is a *LockedError naming the holder. A lock left
// by a dead process is reported as stale but never taken over silently:
// only ForceUnlock removes someone else's lock.
func AcquireLock(statePath, operation string) (*Lock, error) {
	l := &Lock{path: lockPath(statePath), Info: NewLockInfo(operation)}
	data, err := json.MarshalIndent(l.Info, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", statePath, err)
	}
	data = append(data, '\n')
	for attempt := 1; ; attempt++ {
		err := createExclusive(l.path, data)
		if err == nil {
			return l, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("locking %s: %w", statePath, err)
		}
		locked := lockedBy(statePath)
		if errors.Is(locked.ReadErr, fs.ErrNotExist) && attempt < lockAttempts {
			continue
		}
		return nil, locked
	}
}

// createExclusive creates path with data, failing if it exists. A lock
// file that could not be written completely is removed again.
func createExclusive(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

// Unlock releases the lock, but only if the lock file is still this lock:
// if someone force-unlocked it and another run locked it since, that run's
// lock is left alone.
func (l *Lock) Unlock() error {
	held, err := readLockInfo(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("unlocking: the lock file %s is gone (was it force-unlocked?)", l.path)
	}
	if err != nil {
		return fmt.Errorf("unlocking: %w", err)
	}
	if held.ID != l.Info.ID {
		return fmt.Errorf("unlocking: %s is now held by %s (lock ID %s), not by this run (lock ID %s): leaving it",
			l.path, held.Owner, held.ID, l.Info.ID)
	}
	// A force-unlock and a new lock could slip in between the read above and
	// this remove; both would need another run to race within microseconds
	// after someone removed our lock by hand, which the check above cannot
	// rule out but makes vanishingly rare.
	if err := os.Remove(l.path); err != nil {
		return fmt.Errorf("unlocking: %w", err)
	}
	return nil
}

// ForceUnlock removes the lock on the state file at statePath, but only if
// its ID is id, so a stale ID copied from an old message cannot remove a
// lock a live run took since.
func ForceUnlock(statePath, id string) error {
	lp := lockPath(statePath)
	held, err := readLockInfo(lp)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s is not locked (there is no %s)", statePath, lp)
	}
	if err != nil {
		return fmt.Errorf("force-unlock: %w; if no eggo is running on %s, delete %s by hand", err, statePath, lp)
	}
	if held.ID != id {
		return fmt.Errorf("force-unlock: %s is locked with lock ID %s, not %s: not removing it (held by %s)",
			statePath, held.ID, id, held.Describe())
	}
	if err := os.Remove(lp); err != nil {
		return fmt.Errorf("force-unlock: %w", err)
	}
	return nil
}

// LockedError says the state is locked by another run.
type LockedError struct {
	StatePath string
	LockPath  string
	Holder    LockInfo // zero when the lock file could not be read
	// Stale is true when the holder ran on this host and its pid is gone.
	Stale   bool
	ReadErr error // why the lock file could not be read, if it could not
}

func (e *LockedError) Error() string {
	if e.ReadErr != nil {
		return fmt.Sprintf("%s is locked, but its lock file %s cannot be read (%v): if no eggo is running on this state, delete %s",
			e.StatePath, e.LockPath, e.ReadErr, e.LockPath)
	}
	msg := fmt.Sprintf("%s is locked by %s", e.StatePath, e.Holder.Describe())
	if e.Stale {
		return msg + fmt.Sprintf("; pid %d no longer runs on this host, so the lock looks stale: run `eggo force-unlock %s` to remove it",
			e.Holder.PID, e.Holder.ID)
	}
	return msg + fmt.Sprintf(": if that run is dead, run `eggo force-unlock %s`", e.Holder.ID)
}

// Describe names the holder for an error message: who, which pid and
// operation, since when, and the lock ID force-unlock needs.
func (h LockInfo) Describe() string {
	return fmt.Sprintf("%s (pid %d, %s, since %s; lock ID %s)",
		h.Owner, h.PID, h.Operation, h.Created.Format(time.RFC3339), h.ID)
}

// lockedBy describes the current holder of the lock on statePath.
func lockedBy(statePath string) *LockedError {
	e := &LockedError{StatePath: statePath, LockPath: lockPath(statePath)}
	// The holder writes its lock file right after creating it; give it a
	// moment if we caught it in between.
	for wait := 10 * time.Millisecond; ; wait *= 2 {
		e.Holder, e.ReadErr = readLockInfo(e.LockPath)
		if e.ReadErr == nil || errors.Is(e.ReadErr, fs.ErrNotExist) || wait > 200*time.Millisecond {
			break
		}
		time.Sleep(wait)
	}
	if e.ReadErr == nil {
		e.Stale = holderIsDead(e.Holder)
	}
	return e
}

func readLockInfo(path string) (LockInfo, error) {
	var info LockInfo
	data, err := os.ReadFile(path)
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return info, fmt.Errorf("lock file %s: %w", path, err)
	}
	if info.ID == "" {
		return info, fmt.Errorf("lock file %s has no lock ID", path)
	}
	return info, nil
}

// holderIsDead reports whether the holder ran on this host and its process
// is gone. A holder on another host cannot be checked from here.
func holderIsDead(h LockInfo) bool {
	host := h.Owner[strings.LastIndexByte(h.Owner, '@')+1:]
	if host != hostname() || h.PID <= 0 {
		return false
	}
	alive, known := processAlive(h.PID)
	return known && !alive
}

func newLockID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails; see NewLineage
	return hex.EncodeToString(b[:])
}

func currentOwner() string { return currentUser() + "@" + hostname() }

// NewLockInfo describes this process holding a lock for operation: a fresh
// ID, user@host, pid and the time. Every backend's lock says the same.
func NewLockInfo(operation string) LockInfo {
	return LockInfo{ID: newLockID(), Owner: currentOwner(), PID: os.Getpid(), Operation: operation,
		Created: time.Now().UTC().Truncate(time.Second)}
}

// Complete fills what the caller left empty (a new ID, this user@host,
// this pid, now), the way NewLockInfo describes a holder: a shared
// backend's lock says the same as the file's.
func (h LockInfo) Complete() LockInfo {
	full := NewLockInfo(h.Operation)
	if h.ID == "" {
		h.ID = full.ID
	}
	if h.Owner == "" {
		h.Owner = full.Owner
	}
	if h.PID == 0 {
		h.PID = full.PID
	}
	if h.Created.IsZero() {
		h.Created = full.Created
	}
	return h
}

func currentUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if name := os.Getenv("USER"); name != "" {
		return name
	}
	return "uid" + strconv.Itoa(os.Getuid())
}

func hostname() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "unknown-host"
}
