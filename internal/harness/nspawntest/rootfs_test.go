package nspawntest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	for _, p := range []string{"usr/sbin/sshd", "lib/systemd/systemd", "usr/sbin/ip", "usr/sbin/iptables", "usr/sbin/conntrack", "usr/bin/sudo", "usr/sbin/haproxy", rootfsStamp} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err != nil { // some are absolute symlinks (alternatives)
			t.Errorf("rootfs lacks %s: %v", p, err)
		}
	}
	if keys, _ := filepath.Glob(filepath.Join(dir, "etc/ssh/ssh_host_*")); len(keys) != 0 {
		t.Errorf("rootfs still holds shared host keys %v; every node must get its own", keys)
	}
	if _, err := os.Lstat(filepath.Join(dir, "etc/systemd/system/multi-user.target.wants/haproxy.service")); err == nil {
		t.Error("haproxy.service is enabled in the rootfs: with Debian's config it would idle on every node")
	}
	if partial, _ := filepath.Glob(dir + ".partial-*"); len(partial) != 0 {
		t.Errorf("unfinished builds left behind: %v", partial)
	}
}

func TestRootfsReadyNeedsStampOfThisRecipe(t *testing.T) {
	dir := t.TempDir()
	if RootfsReady(dir) {
		t.Fatal("a directory without the stamp must not count as a finished rootfs")
	}
	stamp := filepath.Join(dir, rootfsStamp)
	// What builds before the package list was recorded wrote: a time.
	os.WriteFile(stamp, []byte("2025-11-21T16:53:00Z\n"), 0o644)
	if RootfsReady(dir) {
		t.Fatal("a rootfs stamped by an older build (no recipe) was taken as current")
	}
	if err := writeRootfsStamp(dir); err != nil {
		t.Fatal(err)
	}
	if !RootfsReady(dir) {
		t.Fatal("stamped rootfs not recognised")
	}
	withPackages(t, append(slices.Clone(RootfsPackages), "nginx"))
	if RootfsReady(dir) {
		t.Fatal("a rootfs built without a package now in RootfsPackages was taken as current")
	}
}

func TestRootfsRecipeFollowsPackageList(t *testing.T) {
	t.Setenv("EGGO_TESTBED_CACHE", "")
	dir, recipe := RootfsDir(), rootfsRecipe()
	if !strings.HasPrefix(dir, "/var/cache/eggo/testbed/rootfs-bookworm-") {
		t.Errorf("default rootfs dir = %s", dir)
	}
	if !strings.Contains(recipe, "haproxy") {
		t.Errorf("recipe %q lacks haproxy", recipe)
	}

	reversed := slices.Clone(RootfsPackages)
	slices.Reverse(reversed)
	withPackages(t, reversed)
	if RootfsDir() != dir || rootfsRecipe() != recipe {
		t.Error("the order of RootfsPackages changed the cache: it must not")
	}
	withPackages(t, RootfsPackages[1:])
	if RootfsDir() == dir || rootfsRecipe() == recipe {
		t.Errorf("dropping %s from the package list kept the cache %s", RootfsPackages[0], dir)
	}

	t.Setenv("EGGO_TESTBED_CACHE", "/srv/rootfs")
	if RootfsDir() != "/srv/rootfs" {
		t.Errorf("EGGO_TESTBED_CACHE ignored: %s", RootfsDir())
	}
}

// withPackages sets RootfsPackages for the rest of the test.
func withPackages(t *testing.T, pkgs []string) {
	saved := RootfsPackages
	RootfsPackages = pkgs
	t.Cleanup(func() { RootfsPackages = saved })
}

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("testbed tests need root (network namespaces, overlay mounts, systemd-nspawn); run them as root")
	}
}
