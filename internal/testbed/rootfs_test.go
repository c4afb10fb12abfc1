package testbed

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRootfs builds (or reuses) the cached rootfs and checks it is a usable,
// node-neutral lower layer.
func TestRootfs(t *testing.T) {
	requireRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir := RootfsDir()
	took, err := EnsureRootfs(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if took > 0 {
		t.Logf("rootfs built in %s", took.Round(time.Second))
	}
	for _, p := range []string{"usr/sbin/sshd", "lib/systemd/systemd", "usr/sbin/ip", "usr/sbin/iptables", "usr/sbin/conntrack", "usr/bin/sudo", rootfsStamp} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err != nil { // some are absolute symlinks (alternatives)
			t.Errorf("rootfs lacks %s: %v", p, err)
		}
	}
	if keys, _ := filepath.Glob(filepath.Join(dir, "etc/ssh/ssh_host_*")); len(keys) != 0 {
		t.Errorf("rootfs still holds shared host keys %v; every node must get its own", keys)
	}
	if partial, _ := filepath.Glob(dir + ".partial-*"); len(partial) != 0 {
		t.Errorf("unfinished builds left behind: %v", partial)
	}
}

func TestRootfsReadyNeedsStamp(t *testing.T) {
	dir := t.TempDir()
	if RootfsReady(dir) {
		t.Fatal("a directory without the stamp must not count as a finished rootfs")
	}
	os.WriteFile(filepath.Join(dir, rootfsStamp), nil, 0o644)
	if !RootfsReady(dir) {
		t.Fatal("stamped rootfs not recognised")
	}
}

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("testbed tests need root (network namespaces, overlay mounts, systemd-nspawn); run them as root")
	}
}
