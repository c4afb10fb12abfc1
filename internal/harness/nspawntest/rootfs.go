package nspawntest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// RootfsPackages are installed by debootstrap next to the minbase variant:
// systemd boots the node, sshd reaches it, kubelet and kube-proxy need
// iptables, conntrack and ca-certificates, load-balancer nodes run
// the distribution's haproxy, and tests query the cluster's DNS with dig
// (bind9-dnsutils).
var RootfsPackages = []string{
	"systemd", "systemd-sysv", "openssh-server", "iproute2", "dbus", "procps",
	"iptables", "conntrack", "ca-certificates", "sudo", "haproxy", "bind9-dnsutils",
}

const (
	rootfsSuite = "bookworm"
	// rootfsPrepareVersion names what prepareRootfs does to a fresh
	// debootstrap; bump it when that changes so old caches are rebuilt.
	rootfsPrepareVersion = 2
	// rootfsStamp is written last into a finished build and holds its
	// recipe; a directory without it is an interrupted build, one with
	// another recipe an outdated one, and neither is used.
	rootfsStamp = ".eggo-testbed-rootfs"
)

// rootfsRecipe says what a build installs and how it is prepared, with the
// packages sorted so their order in RootfsPackages does not matter.
func rootfsRecipe() string {
	pkgs := slices.Clone(RootfsPackages)
	slices.Sort(pkgs)
	return fmt.Sprintf("debootstrap --variant=minbase --include=%s %s\nprepare v%d\n",
		strings.Join(pkgs, ","), rootfsSuite, rootfsPrepareVersion)
}

// RootfsDir is the cached rootfs: EGGO_TESTBED_CACHE when set, else
// /var/cache/eggo/testbed/rootfs-bookworm-HASH, HASH being a short hash of
// the recipe. A changed recipe thus builds beside the old cache instead of
// over it: a testbed still running on the old one keeps its lower layer.
func RootfsDir() string {
	if d := os.Getenv("EGGO_TESTBED_CACHE"); d != "" {
		return d
	}
	return defaultRootfsDir()
}

func defaultRootfsDir() string {
	sum := sha256.Sum256([]byte(rootfsRecipe()))
	return "/var/cache/eggo/testbed/rootfs-" + rootfsSuite + "-" + hex.EncodeToString(sum[:4])
}

// RootfsReady reports whether dir holds a finished rootfs built from the
// current recipe.
func RootfsReady(dir string) bool {
	stamp, err := os.ReadFile(filepath.Join(dir, rootfsStamp))
	return err == nil && bytes.Equal(stamp, []byte(rootfsRecipe()))
}

// writeRootfsStamp marks dir as a finished build of the current recipe.
func writeRootfsStamp(dir string) error {
	return os.WriteFile(filepath.Join(dir, rootfsStamp), []byte(rootfsRecipe()), 0o644)
}

// EnsureRootfs returns dir once it holds a finished rootfs, building it with
// debootstrap first when needed. Concurrent callers (test binaries of several
// packages) serialise on a lock file so only one of them builds. built says
// how long the build took, zero when the cache was used.
func EnsureRootfs(ctx context.Context, dir string, log *os.File) (built time.Duration, err error) {
	if RootfsReady(dir) {
		return 0, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return 0, fmt.Errorf("rootfs cache %s: %w", dir, err)
	}
	unlock, err := lockFile(ctx, dir+".lock")
	if err != nil {
		return 0, fmt.Errorf("rootfs cache %s: %w", dir, err)
	}
	defer unlock()
	if RootfsReady(dir) { // another process built it while we waited
		return 0, nil
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		return 0, fmt.Errorf("rootfs %s is not built and debootstrap is missing (apt-get install debootstrap)", dir)
	}
	start := time.Now()
	// Builds interrupted earlier are garbage now that we hold the lock.
	stale, _ := filepath.Glob(dir + ".partial-*")
	for _, s := range stale {
		if err := removeTree(s); err != nil {
			return 0, fmt.Errorf("stale rootfs build: %w", err)
		}
	}
	tmp := fmt.Sprintf("%s.partial-%d", dir, os.Getpid())
	defer removeTree(tmp)
	cmd := exec.CommandContext(ctx, "debootstrap", "--variant=minbase",
		"--include="+strings.Join(RootfsPackages, ","), rootfsSuite, tmp)
	if log != nil {
		cmd.Stdout, cmd.Stderr = log, log
	}
	if out, err := runCaptured(cmd, log == nil); err != nil {
		return 0, fmt.Errorf("debootstrap into %s: %w%s", tmp, err, out)
	}
	if err := prepareRootfs(tmp); err != nil {
		return 0, fmt.Errorf("prepare rootfs %s: %w", tmp, err)
	}
	if err := writeRootfsStamp(tmp); err != nil {
		return 0, err
	}
	// A stale unfinished or outdated dir would block the rename.
	if err := removeTree(dir); err != nil {
		return 0, fmt.Errorf("rootfs %s: %w", dir, err)
	}
	if err := unmountAll(tmp); err != nil { // never ship a mount
		return 0, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return 0, fmt.Errorf("rootfs %s: %w", dir, err)
	}
	return time.Since(start), nil
}

// prepareRootfs makes the shared lower layer node-neutral: every node gets
// its own host key, machine-id and hostname in its overlay, and nothing that
// reaches for the network on a timer. haproxy is installed but not
// enabled: Debian's default config binds nothing, so it would only idle on
// every node; the load balancer starts it (systemctl enable, then
// reload-or-restart) once it has written a config that binds 6443.
func prepareRootfs(root string) error {
	for _, glob := range []string{"etc/ssh/ssh_host_*", "etc/hostname"} {
		matches, _ := filepath.Glob(filepath.Join(root, glob))
		for _, m := range matches {
			if err := os.Remove(m); err != nil {
				return err
			}
		}
	}
	// An empty machine-id lets systemd boot; nodes overwrite it.
	if err := os.WriteFile(filepath.Join(root, "etc/machine-id"), nil, 0o444); err != nil {
		return err
	}
	// Only the ed25519 key is provisioned; naming it keeps sshd from
	// logging about missing rsa/ecdsa keys on every boot.
	conf := "HostKey /etc/ssh/ssh_host_ed25519_key\nUseDNS no\n"
	if err := os.WriteFile(filepath.Join(root, "etc/ssh/sshd_config.d/eggo-testbed.conf"), []byte(conf), 0o644); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(root, "etc/systemd/system/multi-user.target.wants/haproxy.service")); err != nil && !os.IsNotExist(err) {
		return err
	}
	for _, unit := range []string{"apt-daily.timer", "apt-daily-upgrade.timer", "systemd-timesyncd.service"} {
		link := filepath.Join(root, "etc/systemd/system", unit)
		os.Remove(link)
		if err := os.Symlink("/dev/null", link); err != nil {
			return err
		}
	}
	return nil
}
