package hookrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cryptossh "golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/internal/harness/sshdtest"
	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/providers/ssh"
)

// A dropped connection cannot stop the hook from eggo's side: the
// watchdog on the host ends it (at once when sshd takes the controller
// down with the session, at the latest at its limit) and the scripts'
// directory is removed.
func TestDroppedConnectionStillEndsTheHookAtItsLimit(t *testing.T) {
	conn := sshConn(t)
	m := marker(t)
	started := filepath.Join(t.TempDir(), "started")
	s := spec(t, "trap '' HUP PIPE\ntouch "+shell.Quote(started)+"\nwhile :; do sleep 0.05; done\n")
	s.Args = []string{m}
	s.Timeout, s.Grace = 2*time.Second, time.Second
	start := time.Now()
	go func() {
		for time.Since(start) < 15*time.Second {
			if _, err := os.Stat(started); err == nil {
				_ = conn.Close()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	o := Run(context.Background(), conn, "node-a", s)
	if o.Decision != DecisionAbort || o.Err == nil {
		t.Fatalf("outcome %+v", o)
	}
	if strings.Contains(o.Err.Error(), "while :") {
		t.Errorf("the error quotes the runner's command line: %v", o.Err)
	}
	for time.Since(start) < 15*time.Second && (pgrep(m) || !dirEmpty(s.TempDir)) {
		time.Sleep(50 * time.Millisecond)
	}
	// The controller outlives the dropped session here, so it is the
	// watchdog's limit (2s after the script started) that ends the hook.
	within(t, "the orphaned hook", time.Since(start), 2*time.Second, 10*time.Second)
	noProcessesLeft(t, m)
	tempDirEmpty(t, s.TempDir)
}

// A non-root login with sudo: the scripts run as root, the temporary
// directory is private to root and removed.
func TestSudoRunsTheHookAsRoot(t *testing.T) {
	t.Setenv("SSH_AUTH_SOCK", "")
	u := sshdtest.AddUser(t, true)
	keyFile, pub := sshdtest.GenerateUserKey(t)
	server := sshdtest.Start(t, sshdtest.Options{AuthorizedKeys: []cryptossh.PublicKey{pub}})
	c, err := ssh.DialWith(context.Background(), providers.Target{
		Name: "node-b", Type: "ssh", Address: "127.0.0.1", Port: server.Port, User: u.Name, Sudo: true,
		PrivateKeyFile: keyFile, KnownHostsFile: server.WriteKnownHosts(t), ConnectTimeout: 5 * time.Second,
	}, ssh.Options{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	out := filepath.Join(t.TempDir(), "who")
	if err := os.Chmod(filepath.Dir(out), 0o777); err != nil {
		t.Fatal(err)
	}
	s := spec(t, "id -u > "+shell.Quote(out)+"\nstat -c %a%U \"$(dirname \"$0\")\" >> "+shell.Quote(out)+"\n")
	if err := os.Chmod(s.TempDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if o := Run(context.Background(), c, "node-b", s); o.Decision != DecisionOK {
		t.Fatalf("outcome %+v", o)
	}
	if got := readFile(t, out); got != "0\n700root\n" {
		t.Errorf("got %q, want uid 0 and a root-only directory", got)
	}
	tempDirEmpty(t, s.TempDir)
}
