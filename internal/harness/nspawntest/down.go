package nspawntest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// shutdownGrace is how long a node gets to shut down cleanly after SIGTERM.
const shutdownGrace = 20 * time.Second

// Down shuts every node down (SIGTERM to systemd-nspawn, SIGKILL after a
// grace period), unmounts the overlays, deletes the namespaces (nodes' and
// router's), veths and bridges, and removes the run dir. It is idempotent, and it also finds what
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

	// The kubelets' cgroup roots are named after the nodes' machine IDs,
	// which can be read only while the nodes run.
	machineIDs := nodeMachineIDs(dir)

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
	removeCgroupRoots("/sys/fs/cgroup", machineIDs)

	for _, mp := range mountsUnder(dir) {
		if err := unmount(mp); err != nil {
			errs = append(errs, fmt.Errorf("testbed %s: %w", id, err))
		}
	}

	veths, netns, bridges := ownedNames(id, rec)
	for _, l := range veths {
		if err := deleteLink(ctx, l); err != nil {
			errs = append(errs, fmt.Errorf("testbed %s: %w", id, err))
		}
	}
	for _, ns := range netns {
		if err := deleteNetns(ctx, ns); err != nil {
			errs = append(errs, fmt.Errorf("testbed %s: %w", id, err))
		}
	}
	for _, l := range bridges {
		if err := deleteLink(ctx, l); err != nil {
			errs = append(errs, fmt.Errorf("testbed %s: %w", id, err))
		}
	}

	if err := removeTree(dir); err != nil {
		errs = append(errs, fmt.Errorf("testbed %s: %w", id, err))
	}
	return errors.Join(errs...)
}

// ownedNames are the links and namespaces of testbed id, found by name
// (a crash may have kept them out of the record) and in the record (nil
// when lost): the veths of nodes and router (ev-ID-*), the namespaces of
// nodes and router (eggo-ID-*), and the bridges (ebr-ID, ebr-ID-N).
func ownedNames(id string, rec *record) (veths, netns, bridges []string) {
	veths = linksWithPrefix("ev-" + id + "-")
	netns = netnsWithPrefix(netnsPrefix(id))
	bridges = append(linksWithPrefix(bridgeName(id)+"-"), bridgeName(id))
	if rec != nil {
		for _, n := range rec.Nodes {
			veths = append(veths, n.Veth)
			netns = append(netns, n.Netns)
		}
		if rec.Router != "" {
			netns = append(netns, rec.Router)
		}
		for _, n := range rec.More {
			bridges = append(bridges, n.Bridge)
		}
	}
	return veths, netns, bridges
}

// DownAll tears down every testbed on this machine: those under the
// default run root and under every other run root beside it
// (/run/eggo-testbed-*: a make test run's, a test's own), including those
// left behind by a test or CLI process that crashed or was killed, and
// then any namespace or link named like a testbed's whose run dir is gone
// from all of them.
func DownAll() error {
	roots := runRoots()
	var errs []error
	for _, root := range roots {
		errs = append(errs, DownAllIn(root))
	}
	// With every testbed down, no kubelet of theirs runs: the cgroup
	// roots one left (still busy when its testbed went) go too.
	removeCgroupRoots("/sys/fs/cgroup", leftCgroupRoots("/sys/fs/cgroup"))
	return errors.Join(append(errs, sweepOrphanNames(roots, func(string) bool { return true }))...)
}

// runRoots are the default run root, EGGO_TESTBED_RUN's if it is another,
// and every directory named like a run root beside the default one.
func runRoots() []string {
	def := "/run/eggo-testbed"
	roots := []string{def}
	if d := filepath.Clean(DefaultRunRoot()); d != def {
		roots = append(roots, d)
	}
	more, _ := filepath.Glob(def + "-*")
	for _, d := range more {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && !slices.Contains(roots, d) {
			roots = append(roots, d)
		}
	}
	return roots
}

// DownAllIn tears down every testbed whose run dir is under root, recorded
// or not, and also testbeds whose nodes still run or are still mounted
// below root after their run dir was deleted.
func DownAllIn(root string) error {
	root = filepath.Clean(root)
	ids := map[string]bool{}
	entries, err := os.ReadDir(root)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			ids[e.Name()] = true
		}
	}
	for _, mp := range mountsUnder(root) {
		ids[firstComponent(root, mp)] = true
	}
	for _, pid := range nspawnsUnder(root) {
		for _, id := range nspawnIDs(root, pid) {
			ids[id] = true
		}
	}
	delete(ids, "")
	var errs []error
	for id := range ids {
		dir := filepath.Join(root, id)
		rec, _ := loadRecord(dir) // nil when the crash came before the first save
		if rec != nil {
			id = rec.ID
		}
		if err := teardown(id, dir, rec); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// firstComponent is the name directly below root on the way to path.
func firstComponent(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return ""
	}
	return strings.Split(rel, string(filepath.Separator))[0]
}

// nspawnIDs are the testbed ids named by a systemd-nspawn's arguments below root.
func nspawnIDs(root string, pid int) []string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	var ids []string
	for _, a := range strings.Split(string(data), "\x00") {
		if strings.HasPrefix(a, root+"/") {
			ids = append(ids, firstComponent(root, a))
		}
	}
	return ids
}

// sweepOrphanNames deletes namespaces (eggo-ID-*) and links (ebr-ID,
// ebr-ID-N, ev-ID-*) of testbed ids that have no run dir under any of
// roots: all that is left of a testbed whose run dir was removed by hand.
// Only ids that consider accepts are touched.
func sweepOrphanNames(roots []string, consider func(id string) bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	orphan := func(id string) bool {
		if !idPattern.MatchString(id) || !consider(id) {
			return false
		}
		for _, root := range roots {
			if _, err := os.Stat(filepath.Join(root, id)); !os.IsNotExist(err) {
				return false
			}
		}
		return true
	}
	var errs []error
	for _, ns := range netnsWithPrefix("eggo-") {
		if id, _, ok := strings.Cut(strings.TrimPrefix(ns, "eggo-"), "-"); ok && orphan(id) {
			errs = append(errs, deleteNetns(ctx, ns))
		}
	}
	for _, l := range linksWithPrefix("ev-") {
		if id, _, ok := strings.Cut(strings.TrimPrefix(l, "ev-"), "-"); ok && orphan(id) {
			errs = append(errs, deleteLink(ctx, l))
		}
	}
	for _, l := range linksWithPrefix("ebr-") {
		if id, _, _ := strings.Cut(strings.TrimPrefix(l, "ebr-"), "-"); orphan(id) {
			errs = append(errs, deleteLink(ctx, l))
		}
	}
	return errors.Join(errs...)
}
