package nspawntest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUpFailureCleansUpAndExplains boots a node from a "rootfs" that holds no
// OS: Up must fail naming the node and quoting its systemd-nspawn log, and
// leave nothing behind.
func TestUpFailureCleansUpAndExplains(t *testing.T) {
	requireRoot(t)
	bogus := t.TempDir()
	// Directories provisioning writes into, but no init to boot.
	if err := os.MkdirAll(filepath.Join(bogus, "etc/ssh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeRootfsStamp(bogus); err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp("/run", "eggo-testbed-fail-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tb, err := Up(ctx, Options{Names: []string{"broken"}, ID: "fail" + time.Now().Format("0405"), RunRoot: root, Rootfs: bogus})
	if err == nil {
		tb.Down()
		t.Fatal("Up succeeded on an empty rootfs")
	}
	msg := err.Error()
	t.Logf("Up failed as it should:\n%s", msg)
	for _, want := range []string{"node broken", "nspawn.log", "systemd-nspawn exited"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		assertNothingLeft(t, e.Name(), filepath.Join(root, e.Name()))
	}
	if len(entries) != 0 {
		t.Errorf("run dirs left after a failed Up: %v", entries)
	}
}

// TestContainersNode boots one node with Options.Containers and checks what
// containerd and runc will need is there.
func TestContainersNode(t *testing.T) {
	tb := UpForTestWith(t, Options{N: 1, Containers: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := tb.Exec(ctx, "m0", strings.Join([]string{
		"findmnt -n -o FSTYPE /var/lib/containerd",
		"test -c /dev/kmsg && echo kmsg",
		"mkdir /sys/fs/cgroup/pids/eggo-probe && rmdir /sys/fs/cgroup/pids/eggo-probe && echo cgroup-writable",
	}, "; "))
	if err != nil {
		t.Fatal(err)
	}
	if fields := strings.Fields(out); len(fields) != 3 || fields[0] == "overlay" || fields[1] != "kmsg" || fields[2] != "cgroup-writable" {
		t.Errorf("containers node: %q, want a non-overlay /var/lib/containerd, /dev/kmsg and writable cgroups", out)
	}

	// A kubelet's cgroup root as eggo names it (cgroup_root_per_node), with
	// a pod's cgroup in it, goes with the testbed: the hierarchy is this
	// machine's.
	id, err := tb.Exec(ctx, "m0", "cat /etc/machine-id")
	if err != nil {
		t.Fatal(err)
	}
	tree := "/sys/fs/cgroup/pids/eggo-" + strings.TrimSpace(id)
	if _, err := tb.Exec(ctx, "m0", "mkdir -p "+tree+"/kubepods/pod1"); err != nil {
		t.Fatal(err)
	}
	if err := tb.Down(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tree); !os.IsNotExist(err) {
		t.Errorf("%s left after the testbed went down: %v", tree, err)
		os.Remove(tree + "/kubepods/pod1")
		os.Remove(tree + "/kubepods")
		os.Remove(tree)
	}
}
