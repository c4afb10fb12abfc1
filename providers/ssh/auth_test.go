package ssh

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/harness/sshdtest"
	"github.com/eggo-project/eggo/providers"
)

func TestKeyAuthRunsCommand(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	c := dial(t, f.target(t))
	if got := output(t, c, "echo hello; id -un"); got != "hello\nroot" {
		t.Fatalf("stdout = %q", got)
	}
}

func TestAgentAuth(t *testing.T) {
	f := newFixture(t, sshdtest.Options{})
	sock := filepath.Join(t.TempDir(), "agent.sock")
	agent := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatalf("ssh-agent: %v", err)
	}
	t.Cleanup(func() { _ = agent.Process.Kill(); _ = agent.Wait() })
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatal("ssh-agent socket never appeared")
		}
	}
	add := exec.Command("ssh-add", f.keyFile)
	add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v: %s", err, out)
	}
	t.Setenv("SSH_AUTH_SOCK", sock)

	for _, tc := range []struct {
		name  string
		agent bool
	}{{"explicit agent", true}, {"agent as fallback without key file", false}} {
		t.Run(tc.name, func(t *testing.T) {
			target := f.target(t)
			target.PrivateKeyFile = ""
			target.Agent = tc.agent
			if got := output(t, dial(t, target), "echo via-agent"); got != "via-agent" {
				t.Fatalf("stdout = %q", got)
			}
		})
	}
}

func TestPasswordAuth(t *testing.T) {
	noSSHAgent(t)
	u := sshdtest.AddUser(t, false)
	f := newFixture(t, sshdtest.Options{Password: true, Users: []string{u.Name}})
	target := f.target(t)
	target.User, target.PrivateKeyFile, target.PasswordEnv = u.Name, "", "EGGO_TEST_PASSWORD"
	t.Setenv("EGGO_TEST_PASSWORD", u.Password)
	if got := output(t, dial(t, target), "id -un"); got != u.Name {
		t.Fatalf("id -un = %q, want %q", got, u.Name)
	}

	t.Setenv("EGGO_TEST_PASSWORD", "wrong-"+u.Password)
	_, err := DialWith(context.Background(), target, Options{})
	if err == nil {
		t.Fatal("a wrong password logged in")
	}
	for _, want := range []string{"node-a", "authentication", u.Name, "$EGGO_TEST_PASSWORD"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), u.Password) {
		t.Errorf("error leaks the password: %q", err)
	}
}

func TestAuthFailuresAreClearAndSecretFree(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	otherKey, _ := sshdtest.GenerateUserKey(t)
	lockedKey, _ := sshdtest.GenerateUserKeyWithPassphrase(t, "s3cret-phrase")
	otherPEM, _ := os.ReadFile(otherKey)
	secretLine := strings.Split(string(otherPEM), "\n")[1]

	for _, tc := range []struct {
		name   string
		mutate func(*providers.Target)
		want   []string
	}{
		{"key not authorized", func(t *providers.Target) { t.PrivateKeyFile = otherKey },
			[]string{"node-a", "authentication", otherKey, "root"}},
		{"passphrase-protected key", func(t *providers.Target) { t.PrivateKeyFile = lockedKey },
			[]string{"node-a", lockedKey, "passphrase", "ssh-add"}},
		{"missing key file", func(t *providers.Target) { t.PrivateKeyFile = "/nonexistent/id" },
			[]string{"node-a", "/nonexistent/id"}},
		{"no method at all", func(t *providers.Target) { t.PrivateKeyFile = "" },
			[]string{"node-a", "no way to authenticate"}},
		{"password env unset", func(t *providers.Target) { t.PrivateKeyFile, t.PasswordEnv = "", "EGGO_UNSET_VAR" },
			[]string{"node-a", "EGGO_UNSET_VAR"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := f.target(t)
			tc.mutate(&target)
			start := time.Now()
			_, err := DialWith(context.Background(), target, Options{Backoff: 5 * time.Second})
			if err == nil {
				t.Fatal("dial succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), secretLine) || strings.Contains(err.Error(), "s3cret-phrase") {
				t.Errorf("error leaks key material: %q", err)
			}
			// Auth failures are final: a retry would have waited 5s first.
			if d := time.Since(start); d > 4*time.Second {
				t.Errorf("auth failure took %s: was it retried?", d)
			}
		})
	}
}
