package testbed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// shutdownGrace is how long a node gets to shut down cleanly after SIGTERM.
const shutdownGrace = 20 * time.Second

// Down shuts every node down (SIGTERM to systemd-nspawn, SIGKILL after a
// grace period), unmounts the overlays, deletes the namespaces, veths and
// bridge, and removes the run dir. It is idempotent, and it also finds what
// the record missed (a crash between creating something and recording it)
// by the testbed's naming: processes and mounts under its dir, links and
// namespaces named after its id.
func (tb *Testbed) Down() error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return teardown(tb.ID, tb.Dir, tb.rec)
}

func teardown(id, dir string, rec *record) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var errs []error

	// Nodes first, in parallel: each may take a moment to shut down.
	var wg sync.WaitGroup
	stopped := map[int]bool{}
	if rec != nil {
		for _, n := range rec.Nodes {
			if sameProcess(n.PID, n.StartTime) {
				stopped[n.PID] = true
				wg.Add(1)
				go func() { defer wg.Done(); terminate(n.PID, n.StartTime, shutdownGrace) }()
			}
		}
	}
	for _, pid := range nspawnsUnder(dir) {
		if !stopped[pid] {
			start, _ := procStartTime(pid)
			wg.Add(1)
			go func() { defer wg.Done(); terminate(pid, start, shutdownGrace) }()
		}
	}
	wg.Wait()
	// Anything of a node still running has lost its nspawn: no clean
	// shutdown is possible any more.
	for _, pid := range processesRootedUnder(dir) {
		start, _ := procStartTime(pid)
		terminate(pid, start, 0)
	}

	for _, mp := range mountsUnder(dir) {
		if err := unmount(mp); err != nil {
			errs = append(errs, fmt.Errorf("testbed %s: %w", id, err))
		}
	}

	links := linksWithPrefix("ev-" + id + "-")
	netns := netnsWithPrefix(netnsPrefix(id))
	if rec != nil {
		for _, n := range rec.Nodes {
			links = append(links, n.Veth)
			netns = append(netns, n.Netns)
		}
	}
	for _, l := range links {
		if err := deleteLink(ctx, l); err != nil {
			errs = append(errs, fmt.Errorf("testbed %s: %w", id, err))
		}
	}
	for _, ns := range netns {
		if err := deleteNetns(ctx, ns); err != nil {
			errs = append(errs, fmt.Errorf("testbed %s: %w", id, err))
		}
	}
	if err := deleteLink(ctx, bridgeName(id)); err != nil {
		errs = append(errs, fmt.Errorf("testbed %s: %w", id, err))
	}

	if err := removeTree(dir); err != nil {
		errs = append(errs, fmt.Errorf("testbed %s: %w", id, err))
	}
	return errors.Join(errs...)
}

// DownAll tears down every testbed under the default run root, including
// those left behind by a test or CLI process that crashed or was killed.
func DownAll() error { return DownAllIn(DefaultRunRoot()) }

// DownAllIn tears down every testbed whose run dir is under root, recorded
// or not.
func DownAllIn(root string) error {
	entries, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		rec, _ := loadRecord(dir) // nil when the crash came before the first save
		id := e.Name()
		if rec != nil {
			id = rec.ID
		}
		if err := teardown(id, dir, rec); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
