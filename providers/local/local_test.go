package local

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/providers"
)

func conn(t *testing.T, sudo bool) providers.Conn {
	c, err := Dial(context.Background(), providers.Target{Name: "here", Type: "local", Sudo: sudo})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRunResults(t *testing.T) {
	c := conn(t, false)
	var out bytes.Buffer
	if err := c.Run(context.Background(), providers.Command{Cmd: `printf '%s|' "it's" "$0"; cat`, Stdin: strings.NewReader("in"), Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "it's|sh|in" {
		t.Fatalf("stdout %q", out.String())
	}
	for _, tc := range []struct {
		cmd    string
		code   int
		signal string
		stderr string
	}{
		{"echo bad >&2; exit 4", 4, "", "bad"},
		{"kill -TERM $$", -1, "TERM", ""},
		{"kill -KILL $$", -1, "KILL", ""},
	} {
		err := c.Run(context.Background(), providers.Command{Cmd: tc.cmd})
		var exit *providers.ExitError
		if !errors.As(err, &exit) || exit.Host != "here" || exit.Code != tc.code || exit.Signal != tc.signal || exit.Stderr != tc.stderr {
			t.Errorf("%q: got %#v (%v)", tc.cmd, exit, err)
		}
	}
}

func TestSudoIgnoredAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("these tests run as root (CI and developers' machines do)")
	}
	var out bytes.Buffer
	if err := conn(t, true).Run(context.Background(), providers.Command{Cmd: "cat /proc/$PPID/comm", Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out.String()) == "sudo" {
		t.Fatal("ran through sudo although already root")
	}
}

func TestCancelKillsProcessGroup(t *testing.T) {
	c := conn(t, false)
	marker := fmt.Sprintf("4343.%d", time.Now().UnixNano()%100000)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- c.Run(ctx, providers.Command{Cmd: fmt.Sprintf("sleep %s & sleep %s; wait", marker, marker)})
	}()
	waitFor(t, func() bool { return count("sleep "+marker) == 2 })
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "here") {
			t.Fatalf("got %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	waitFor(t, func() bool { return count("sleep "+marker) == 0 })
}

func TestUpload(t *testing.T) {
	c := conn(t, false)
	dir := t.TempDir()
	dst := filepath.Join(dir, "bin")
	data := bytes.Repeat([]byte("eggo"), 1<<18)
	sum := sha256.Sum256(data)
	want := hex.EncodeToString(sum[:])
	if err := c.Upload(context.Background(), bytes.NewReader(data), int64(len(data)), dst, 0o755, want); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(dst)
	st, _ := os.Stat(dst)
	if !bytes.Equal(got, data) || st.Mode().Perm() != 0o755 {
		t.Fatalf("dst has %d bytes, mode %v", len(got), st.Mode())
	}

	wrong := strings.Repeat("cd", 32)
	err := c.Upload(context.Background(), strings.NewReader("other"), 5, dst, 0o644, wrong)
	if err == nil || !strings.Contains(err.Error(), wrong) || !strings.Contains(err.Error(), dst) || !strings.Contains(err.Error(), "here") {
		t.Fatalf("want a mismatch naming host, dst and digest, got %v", err)
	}
	if got, _ := os.ReadFile(dst); !bytes.Equal(got, data) {
		t.Fatal("a failed upload changed dst")
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Upload(ctx, io.LimitReader(zeros{}, 1<<20), 1<<20, dst, 0o644, want); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled upload: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.eggo-tmp-*")); len(m) != 0 {
		t.Fatalf("temporary files left: %v", m)
	}
}

func TestRegisteredForPool(t *testing.T) {
	pool := providers.NewPool(nil)
	defer pool.Close()
	c, err := pool.Get(context.Background(), providers.Target{Name: "here", Type: "local"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(context.Background(), providers.Command{Cmd: "true", Mutates: true}); err != nil {
		t.Fatal(err)
	}
	if s := pool.Stats(); s.Connections != 1 || s.Writes != 1 {
		t.Fatalf("stats %+v", s)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func count(pattern string) int {
	out, _ := exec.Command("pgrep", "-f", "-x", pattern).Output()
	return len(strings.Fields(string(out)))
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
