package nspawntest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTwoHosts boots two real hosts and exercises everything a cluster test
// relies on: SSH with pinned host keys, name resolution and traffic between
// nodes, cutting and restoring a node's link, stopping and restarting a node
// with its files intact, and a Down that leaves nothing behind.
func TestTwoHosts(t *testing.T) {
	tb := UpForTest(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	m0, m1 := tb.Hosts[0], tb.Hosts[1]

	t.Run("ssh and names", func(t *testing.T) {
		for _, h := range tb.Hosts {
			out, err := tb.Exec(ctx, h.Name, "hostname; cat /proc/1/comm; stat -c %a /root/.ssh/authorized_keys")
			if err != nil {
				t.Fatal(err)
			}
			if want := h.Name + "\nsystemd\n600\n"; out != want {
				t.Errorf("%s: got %q, want %q (hostname, PID 1, authorized_keys mode)", h.Name, out, want)
			}
		}
		for _, pair := range [][2]Host{{m0, m1}, {m1, m0}} {
			from, to := pair[0], pair[1]
			start := time.Now()
			out, err := tb.Exec(ctx, from.Name, "getent hosts "+to.Name)
			if err != nil {
				t.Fatal(err)
			}
			// A slow lookup means the node is asking a DNS server, which
			// the testbed must neither need nor reach.
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("on %s, getent hosts %s took %s", from.Name, to.Name, took)
			}
			if f := strings.Fields(out); len(f) < 2 || f[0] != to.Address || f[1] != to.Name {
				t.Errorf("on %s, getent hosts %s = %q, want %s", from.Name, to.Name, out, to.Address)
			}
			if banner := sshBannerFrom(ctx, t, tb, from.Name, to.Name); !strings.HasPrefix(banner, "SSH-2.0") {
				t.Errorf("%s could not reach sshd of %s by name: %q", from.Name, to.Name, banner)
			}
		}
	})

	t.Run("haproxy installed and idle", func(t *testing.T) {
		// Load-balancer nodes run the distribution's haproxy; until eggo
		// configures it, it must neither run nor hold the apiserver port.
		out, err := tb.Exec(ctx, m0.Name, "haproxy -v | head -n 1; systemctl is-enabled haproxy; "+
			"systemctl is-active haproxy; ss -ltnH 'sport = :6443' | wc -l")
		if err != nil { // the last command (wc) decides the exit status
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[0], "HAProxy version 2.") || lines[1] != "disabled" ||
			lines[2] != "inactive" || lines[3] != "0" {
			t.Errorf("haproxy -v, is-enabled, is-active, listeners on 6443 = %q; want a version, disabled, inactive, 0", lines)
		}
	})

	t.Run("machine ids differ", func(t *testing.T) {
		a, err0 := tb.Exec(ctx, m0.Name, "cat /etc/machine-id")
		b, err1 := tb.Exec(ctx, m1.Name, "cat /etc/machine-id")
		if err0 != nil || err1 != nil {
			t.Fatal(err0, err1)
		}
		if len(strings.TrimSpace(a)) != 32 || a == b {
			t.Errorf("machine-ids %q and %q must be distinct 32-hex ids", a, b)
		}
	})

	t.Run("cut and restore", func(t *testing.T) {
		if err := tb.Cut(m1.Name); err != nil {
			t.Fatal(err)
		}
		if reachable(m1.Address) {
			t.Errorf("%s still reachable from this machine after Cut", m1.Name)
		}
		if banner := sshBannerFrom(ctx, t, tb, m0.Name, m1.Name); banner != "" {
			t.Errorf("%s still reaches %s after Cut: %q", m0.Name, m1.Name, banner)
		}
		if err := tb.Restore(m1.Name); err != nil {
			t.Fatal(err)
		}
		if !eventually(5*time.Second, func() bool { return reachable(m1.Address) }) {
			t.Fatalf("%s not reachable after Restore", m1.Name)
		}
		if _, err := tb.Exec(ctx, m1.Name, "true"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("stop and start", func(t *testing.T) {
		if _, err := tb.Exec(ctx, m1.Name, "echo kept > /root/marker; echo lost > /run/marker"); err != nil {
			t.Fatal(err)
		}
		if err := tb.Stop(m1.Name); err != nil {
			t.Fatal(err)
		}
		if up, _ := tb.Running(m1.Name); up {
			t.Fatalf("%s still running after Stop", m1.Name)
		}
		if reachable(m1.Address) {
			t.Errorf("%s sshd still answers after Stop", m1.Name)
		}
		if _, err := tb.Exec(ctx, m0.Name, "true"); err != nil {
			t.Errorf("stopping %s disturbed %s: %v", m1.Name, m0.Name, err)
		}
		if err := tb.Start(ctx, m1.Name); err != nil {
			t.Fatal(err)
		}
		out, err := tb.Exec(ctx, m1.Name, "cat /root/marker; test ! -e /run/marker && echo rebooted")
		if err != nil {
			t.Fatal(err)
		}
		if out != "kept\nrebooted\n" {
			t.Errorf("after Start: %q, want the overlay's file kept and /run fresh", out)
		}
		if err := tb.Start(ctx, m1.Name); err == nil || !strings.Contains(err.Error(), "already running") {
			t.Errorf("Start of a running node: %v, want an 'already running' error", err)
		}
	})

	t.Run("down leaves nothing", func(t *testing.T) {
		if err := tb.Down(); err != nil {
			t.Fatal(err)
		}
		assertNothingLeft(t, tb.ID, tb.Dir)
		if err := tb.Down(); err != nil {
			t.Errorf("second Down: %v", err)
		}
	})
}

// TestDownAllAfterCrash leaves a testbed behind the way a killed process
// would (object gone, record gone) and checks DownAll still finds and
// removes all of it. It uses its own run root so it never touches testbeds
// of tests running in parallel.
func TestDownAllAfterCrash(t *testing.T) {
	requireRoot(t)
	root, err := os.MkdirTemp("/run", "eggo-testbed-crash-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tb, err := Up(ctx, Options{N: 2, RunRoot: root, Log: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	id, dir := tb.ID, tb.Dir
	t.Cleanup(func() { teardown(id, dir, nil) }) // only if the test fails midway
	// Simulate the worst crash: the record is lost too, so only names,
	// mounts and command lines lead to what is left.
	if err := os.Remove(filepath.Join(dir, recordFile)); err != nil {
		t.Fatal(err)
	}
	tb = nil
	if got := len(nspawnsUnder(dir)); got != 2 {
		t.Fatalf("expected 2 running nodes before DownAll, found %d", got)
	}
	// A testbed of another run root (a demo the user left running, while
	// make test tears down its own) is not touched.
	other, err := os.MkdirTemp("/run", "eggo-testbed-other-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(other)
	kept, err := Up(ctx, Options{N: 1, RunRoot: other, Log: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Down()
	if err := DownAllIn(root); err != nil {
		t.Fatal(err)
	}
	assertNothingLeft(t, id, dir)
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("run root %s not empty after DownAll: %v", root, entries)
	}
	if got := len(nspawnsUnder(kept.Dir)); got != 1 {
		t.Errorf("the other run root's testbed has %d running nodes after DownAllIn(%s), want 1", got, root)
	}
	if out := cmdOutput(t, "ip", "netns", "list"); !strings.Contains(out, netnsPrefix(kept.ID)) {
		t.Errorf("the other run root's testbed lost its namespaces:\n%s", out)
	}
}

// TestSweepOrphanNames: a namespace and links named like a testbed's whose
// run dir is gone are removed; those of a testbed that still has its dir stay.
func TestSweepOrphanNames(t *testing.T) {
	requireRoot(t)
	root := t.TempDir()
	ctx := context.Background()
	gone, kept := "zz"+time.Now().Format("0405"), "zy"+time.Now().Format("0405")
	if err := os.Mkdir(filepath.Join(root, kept), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{gone, kept} {
		if err := run(ctx, "ip", "netns", "add", netnsName(id, "x")); err != nil {
			t.Fatal(err)
		}
		if err := run(ctx, "ip", "link", "add", bridgeName(id), "type", "bridge"); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, id := range []string{gone, kept} {
			deleteNetns(ctx, netnsName(id, "x"))
			deleteLink(ctx, bridgeName(id))
		}
	})
	// Only our two ids: other testbeds on this machine have no dir in
	// this temporary root and must not be touched.
	ours := func(id string) bool { return id == gone || id == kept }
	if err := sweepOrphanNames([]string{root}, ours); err != nil {
		t.Fatal(err)
	}
	if linkExists(bridgeName(gone)) || len(netnsWithPrefix(netnsPrefix(gone))) != 0 {
		t.Errorf("orphans of %s survived the sweep", gone)
	}
	if !linkExists(bridgeName(kept)) || len(netnsWithPrefix(netnsPrefix(kept))) != 1 {
		t.Errorf("the sweep removed %s, whose run dir exists", kept)
	}
}

// assertNothingLeft checks with the system's own tools, as a person would.
func assertNothingLeft(t *testing.T, id, dir string) {
	t.Helper()
	if out := cmdOutput(t, "ip", "netns", "list"); strings.Contains(out, netnsPrefix(id)) {
		t.Errorf("network namespaces left:\n%s", out)
	}
	if out := cmdOutput(t, "ip", "-o", "link"); strings.Contains(out, "ev-"+id+"-") || strings.Contains(out, bridgeName(id)) {
		t.Errorf("links left:\n%s", out)
	}
	if out := cmdOutput(t, "mount"); strings.Contains(out, dir) {
		t.Errorf("mounts left:\n%s", out)
	}
	if pids := nspawnsUnder(dir); len(pids) > 0 {
		t.Errorf("systemd-nspawn processes left: %v", pids)
	}
	if pids := processesRootedUnder(dir); len(pids) > 0 {
		t.Errorf("node processes left: %v", pids)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("run dir %s left (%v)", dir, err)
	}
}

func cmdOutput(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v: %s", name, args, err, out)
	}
	return string(out)
}

// sshBannerFrom reads the SSH banner of node `to` from inside node `from`,
// resolving `to` by name there; "" when it cannot connect.
func sshBannerFrom(ctx context.Context, t *testing.T, tb *Testbed, from, to string) string {
	t.Helper()
	out, _ := tb.Exec(ctx, from, "timeout 2 bash -c 'exec 3<>/dev/tcp/"+to+"/22 && head -c 7 <&3' 2>/dev/null || true")
	return out
}

func reachable(addr string) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort(addr, "22"), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func eventually(d time.Duration, f func() bool) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if f() {
			return true
		}
	}
	return f()
}
