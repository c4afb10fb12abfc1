package ssh

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/internal/harness/sshdtest"
	"github.com/eggo-project/eggo/providers"
)

// content is a reproducible stream of n pseudo-random bytes, generated as
// it is read: nothing holds the whole file.
func content(seed uint64, n int64) io.Reader {
	var s [32]byte
	s[0] = byte(seed)
	return io.LimitReader(rand.NewChaCha8(s), n)
}

func digest(t *testing.T, r io.Reader) string {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func fileDigest(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return digest(t, f)
}

// leftovers lists temporary upload files in dir.
func leftovers(t *testing.T, dir string) []string {
	m, err := filepath.Glob(filepath.Join(dir, "*.eggo-tmp-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestUploadStreamsAndVerifies(t *testing.T) {
	noSSHAgent(t)
	sudoer := sshdtest.AddUser(t, true)
	f := newFixture(t, sshdtest.Options{Users: []string{"root", sudoer.Name}})
	const size = 20 << 20
	want := digest(t, content(1, size))
	for _, tc := range []struct {
		name string
		user string
		sudo bool
	}{{"as root", "root", false}, {"under sudo into a root-only directory", sudoer.Name, true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir() // 0700 root: only sudo can write here
			dst := filepath.Join(dir, "etcd")
			if err := os.WriteFile(dst, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			target := f.target(t)
			target.User, target.Sudo = tc.user, tc.sudo
			c := dial(t, target)
			if err := c.Upload(context.Background(), content(1, size), size, dst, 0o750, want); err != nil {
				t.Fatalf("upload: %v", err)
			}
			if got := fileDigest(t, dst); got != want {
				t.Fatalf("dst sha256 %s, want %s", got, want)
			}
			st, err := os.Stat(dst)
			if err != nil || st.Mode().Perm() != 0o750 || st.Size() != size {
				t.Fatalf("dst %v, %v", st.Mode(), err)
			}
			if uid := st.Sys().(*syscall.Stat_t).Uid; uid != 0 {
				t.Errorf("dst owned by uid %d, want root", uid)
			}
			if l := leftovers(t, dir); len(l) != 0 {
				t.Fatalf("temporary files left: %v", l)
			}
		})
	}
}

func TestUploadWithWrongDigestFailsAndCleansUp(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	c := dial(t, f.target(t))
	dir := t.TempDir()
	dst := filepath.Join(dir, "kubelet")
	if err := os.WriteFile(dst, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	actual := digest(t, strings.NewReader("new content"))
	wrong := strings.Repeat("ab", 32)
	err := c.Upload(context.Background(), strings.NewReader("new content"), 11, dst, 0o644, wrong)
	if err == nil {
		t.Fatal("upload with a wrong digest succeeded")
	}
	for _, w := range []string{"node-a", dst, wrong, actual} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	if b, _ := os.ReadFile(dst); string(b) != "previous" {
		t.Errorf("dst changed to %q", b)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Fatalf("temporary files left: %v", l)
	}
	if err := c.Upload(context.Background(), strings.NewReader("x"), 1, dst, 0o644, "not-hex"); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("a malformed digest: %v", err)
	}
}

func TestUploadFailsPromptlyWhenConnectionDrops(t *testing.T) {
	noSSHAgent(t)
	f := newFixture(t, sshdtest.Options{})
	proxy := startProxy(t, f.server.Addr)
	target := f.target(t)
	target.Port = proxy.port
	c, err := DialWith(context.Background(), target, Options{
		HostKeyCallback: func(providers.Target) (ssh.HostKeyCallback, error) {
			return ssh.FixedHostKey(f.server.HostPublicKey()), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	dir := t.TempDir()
	dst := filepath.Join(dir, "big")
	const size = 50 << 20
	// Cut the wire once 5 MB have been read from the source.
	src := &cutAfter{r: content(2, size), n: 5 << 20, cut: proxy.cut}
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- c.Upload(context.Background(), src, size, dst, 0o644, strings.Repeat("0", 64)) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "node-a") || !strings.Contains(err.Error(), dst) {
			t.Fatalf("want an error naming host and dst, got %v", err)
		}
		t.Logf("failed after %s: %v", time.Since(start), err)
	case <-time.After(20 * time.Second):
		t.Fatal("Upload hung after the connection dropped")
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Fatalf("dst exists after a failed upload: %v", err)
	}
}

type cutAfter struct {
	r    io.Reader
	n    int64
	read int64
	cut  func()
	once sync.Once
}

func (c *cutAfter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += int64(n)
	if c.read >= c.n {
		c.once.Do(c.cut)
	}
	return n, err
}

// proxy forwards loopback TCP to a server until cut.
type proxy struct {
	port  int
	mu    sync.Mutex
	conns []net.Conn
	ln    net.Listener
}

func startProxy(t *testing.T, to string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{port: ln.Addr().(*net.TCPAddr).Port, ln: ln}
	t.Cleanup(p.cut)
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", to)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(out, in); out.Close() }()
			go func() { _, _ = io.Copy(in, out); in.Close() }()
		}
	}()
	return p
}

func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.ln.Close()
	for _, c := range p.conns {
		_ = c.Close()
	}
}
