// Package sshdtest starts real OpenSSH servers for tests. Each server runs as a
// child of the test on a free loopback port, with its own host key, config
// and authorized keys in a temporary directory, and is killed together with
// every process it spawned when the test ends.
package sshdtest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// Binary is the OpenSSH server the harness runs.
const Binary = "/usr/sbin/sshd"

// Options shape one server.
type Options struct {
	// AuthorizedKeys may log in as any allowed user.
	AuthorizedKeys []ssh.PublicKey
	// Users, when set, are the only accounts allowed to log in.
	Users []string
	// Password enables PasswordAuthentication (checked against /etc/shadow;
	// works because sshd runs as root with UsePAM no).
	Password bool
	// TCPForwarding lets clients open direct-tcpip channels (a bastion).
	TCPForwarding bool
	// MaxSessions per connection; default 64. OpenSSH's own default is 10,
	// which real hosts usually keep: clients must bound their sessions.
	MaxSessions int
	// ExtraHostKeys are host key types the server holds besides ed25519
	// ("rsa", "ecdsa"), as most real hosts hold several.
	ExtraHostKeys []string
}

// Server is one running sshd.
type Server struct {
	Addr    string // 127.0.0.1:PORT
	Port    int
	Dir     string // config, host key and authorized keys live here
	config  string
	extra   []string
	hostKey ssh.PublicKey
	others  []ssh.PublicKey // the ExtraHostKeys, in their order

	cmd      *exec.Cmd
	waitExit chan struct{} // closed when sshd has exited and been reaped
	log      *lockedBuffer
	stopped  *sync.Once
}

// HostPublicKey is the server's ed25519 host key.
func (s *Server) HostPublicKey() ssh.PublicKey { return s.hostKey }

// HostPublicKeys are all the server's host keys: ed25519 first, then the
// ExtraHostKeys in the order asked for.
func (s *Server) HostPublicKeys() []ssh.PublicKey {
	return append([]ssh.PublicKey{s.hostKey}, s.others...)
}

// KnownHostsLine is the known_hosts line for this server, as ssh-keyscan
// would print it: "[127.0.0.1]:PORT ssh-ed25519 AAAA…".
func (s *Server) KnownHostsLine() string {
	return fmt.Sprintf("[127.0.0.1]:%d %s", s.Port, strings.TrimSpace(string(ssh.MarshalAuthorizedKey(s.hostKey))))
}

// WriteKnownHosts writes a known_hosts file holding this server's line and
// returns its path.
func (s *Server) WriteKnownHosts(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(path, []byte(s.KnownHostsLine()+"\n"), 0o644); err != nil {
		t.Fatalf("sshd: write known_hosts: %v", err)
	}
	return path
}

// Log returns what sshd printed so far (it runs with -e, LogLevel VERBOSE).
func (s *Server) Log() string { return s.log.String() }

// Start runs a new sshd and returns once it accepts connections.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	if _, err := os.Stat(Binary); err != nil {
		t.Fatalf("sshd: %s not found: run `make deps` (installs openssh-server, openssh-client and sudo)", Binary)
	}
	// sshd refuses to start without its privilege separation directory.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatalf("sshd: create /run/sshd: %v", err)
	}
	dir := t.TempDir()
	// sshd reads authorized keys as the logging-in user, so non-root test
	// users must be able to reach the directory.
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatalf("sshd: chmod %s: %v", d, err)
		}
	}
	if err := checkKeyTypes(opts.ExtraHostKeys); err != nil {
		t.Fatalf("sshd: %v", err)
	}
	hostPub, others := writeHostKeys(t, dir, opts.ExtraHostKeys)
	var keys bytes.Buffer
	for _, k := range opts.AuthorizedKeys {
		keys.Write(ssh.MarshalAuthorizedKey(k))
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), keys.Bytes(), 0o644); err != nil {
		t.Fatalf("sshd: write authorized_keys: %v", err)
	}
	config := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(config, []byte(configText(dir, opts)), 0o644); err != nil {
		t.Fatalf("sshd: write config: %v", err)
	}

	// A free port can be taken by someone else between our probe and sshd's
	// bind; then sshd exits at once and we try another port.
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			lastErr = err
			continue
		}
		s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Port: port, Dir: dir, config: config,
			extra: opts.ExtraHostKeys, hostKey: hostPub, others: others, log: &lockedBuffer{}}
		if err := s.launch(); err == nil {
			t.Cleanup(s.Stop)
			return s
		} else {
			lastErr = err
		}
	}
	t.Fatalf("sshd: could not start: %v", lastErr)
	return nil
}

// launch starts sshd on s.Port and waits until it answers.
func (s *Server) launch() error {
	port := s.Port
	s.stopped = &sync.Once{}
	s.cmd = exec.Command(Binary, "-D", "-e", "-f", s.config, "-p", strconv.Itoa(port))
	s.cmd.Stdout = s.log
	s.cmd.Stderr = s.log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", Binary, err)
	}
	exited := make(chan struct{})
	s.waitExit = exited
	go func() { _ = s.cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("sshd on port %d exited: %s", port, s.log.String())
		default:
		}
		if banner(s.Addr) {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Stop()
	return fmt.Errorf("sshd on port %d did not accept within 10s: %s", port, s.log.String())
}

// banner reports whether an SSH server answers on addr.
func banner(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "SSH-2.0-")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func configText(dir string, o Options) string {
	yesNo := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	maxSessions := o.MaxSessions
	if maxSessions == 0 {
		maxSessions = 64
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ListenAddress 127.0.0.1\n")
	for _, typ := range append([]string{"ed25519"}, o.ExtraHostKeys...) {
		fmt.Fprintf(&b, "HostKey %s\n", hostKeyFile(dir, typ))
	}
	fmt.Fprintf(&b, "AuthorizedKeysFile %s\n", filepath.Join(dir, "authorized_keys"))
	fmt.Fprintf(&b, "PidFile none\nUsePAM no\nStrictModes no\nUseDNS no\nPrintMotd no\nLogLevel VERBOSE\n")
	fmt.Fprintf(&b, "PermitRootLogin yes\nPubkeyAuthentication yes\nKbdInteractiveAuthentication no\n")
	fmt.Fprintf(&b, "PasswordAuthentication %s\n", yesNo(o.Password))
	fmt.Fprintf(&b, "AllowTcpForwarding %s\n", yesNo(o.TCPForwarding))
	fmt.Fprintf(&b, "MaxSessions %d\nMaxStartups 100:30:200\n", maxSessions)
	if len(o.Users) > 0 {
		fmt.Fprintf(&b, "AllowUsers %s\n", strings.Join(o.Users, " "))
	}
	return b.String()
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
