package nspawntest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// UpForTest boots n nodes for a test and tears them down when it ends. It
// never skips: a test that needs real hosts fails, with the reason, when
// they cannot be had (not root, a tool missing, a boot failing).
func UpForTest(t testing.TB, n int) *Testbed {
	t.Helper()
	return UpForTestWith(t, Options{N: n})
}

// UpForTestWith is UpForTest with full options.
func UpForTestWith(t testing.TB, o Options) *Testbed {
	t.Helper()
	if err := CheckPrerequisites(o); err != nil {
		t.Fatalf("testbed: %v", err)
	}
	if o.Log == nil {
		o.Log = t.Logf
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tb, err := Up(ctx, o)
	if err != nil {
		t.Fatalf("testbed: %v", err)
	}
	t.Cleanup(func() {
		if err := tb.Down(); err != nil {
			t.Errorf("testbed %s: down: %v", tb.ID, err)
		}
	})
	return tb
}

// CheckPrerequisites says what this machine lacks to run a testbed.
func CheckPrerequisites(o Options) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("must run as root (network namespaces, overlay mounts, systemd-nspawn); run the tests with sudo or as root")
	}
	tools := []string{"ip", "systemd-nspawn"}
	rootfs := o.Rootfs
	if rootfs == "" {
		rootfs = RootfsDir()
	}
	if !RootfsReady(rootfs) {
		tools = append(tools, "debootstrap")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s is missing (apt-get install debootstrap systemd-container iproute2)", tool)
		}
	}
	return nil
}

// TreeForTest is Tree, failing the test when the node cannot be listed.
func (tb *Testbed) TreeForTest(t testing.TB, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := tb.Tree(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
