// Package etcdtest starts a real etcd (Debian's etcd-server, /usr/bin/etcd)
// for a test: TLS with client-certificate authentication on free loopback
// ports, its data and certificates in the test's temporary directory, killed
// when the test ends.
package etcdtest

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/testpki"
)

// Binary is the etcd server the tests run; ETCD_BIN overrides it.
var Binary = "/usr/bin/etcd"

// Server is a running etcd that trusts only client certificates signed by
// CAFile.
type Server struct {
	Endpoint string // https://127.0.0.1:PORT
	CAFile   string // the CA that signed the server's and the client's certificates
	CertFile string // a client certificate the server accepts
	KeyFile  string // its key
	// OtherCAFile is a CA that signed none of the above: a client that
	// trusts it cannot verify the server.
	OtherCAFile string
	Dir         string // everything of this server lives here
	LogFile     string // etcd's own output

	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has exited and been reaped
}

// startTimeout bounds how long etcd may take to answer its health check.
const startTimeout = 20 * time.Second

// Start starts an etcd for t, or skips t when no etcd binary is installed
// (`make deps` installs it). The server is killed and its files removed
// when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary
	if b := os.Getenv("ETCD_BIN"); b != "" {
		bin = b
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no etcd server at %s (make deps installs Debian's etcd-server): %v", bin, err)
	}
	s := &Server{Dir: t.TempDir()}
	if err := s.writeCertificates(); err != nil {
		t.Fatalf("etcd test certificates: %v", err)
	}
	// A free port can be taken by someone else between our probe and
	// etcd's bind; try again with new ports rather than fail the test.
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		if err = s.start(bin); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("starting etcd: %v\n%s", err, s.logTail())
	}
	t.Cleanup(s.stop)
	return s
}

func (s *Server) writeCertificates() error {
	ca, err := testpki.NewAuthority(s.Dir, "ca")
	if err != nil {
		return err
	}
	s.CAFile = ca.CertFile
	other, err := testpki.NewAuthority(s.Dir, "other-ca")
	if err != nil {
		return err
	}
	s.OtherCAFile = other.CertFile
	server := testpki.Leaf{Usage: x509.ExtKeyUsageServerAuth, IPs: []net.IP{net.ParseIP("127.0.0.1")}}
	if _, _, err = ca.Issue(s.Dir, "server", server); err != nil {
		return err
	}
	s.CertFile, s.KeyFile, err = ca.Issue(s.Dir, "client", testpki.Leaf{Usage: x509.ExtKeyUsageClientAuth})
	return err
}

// start runs etcd on fresh ports and waits until it is healthy.
func (s *Server) start(bin string) error {
	clientPort, err := FreePort()
	if err != nil {
		return err
	}
	peerPort, err := FreePort()
	if err != nil {
		return err
	}
	s.Endpoint = "https://127.0.0.1:" + strconv.Itoa(clientPort)
	peer := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	dataDir := filepath.Join(s.Dir, "data")
	if err := os.RemoveAll(dataDir); err != nil { // a failed attempt's
		return err
	}
	s.LogFile = filepath.Join(s.Dir, "etcd.log")
	log, err := os.Create(s.LogFile)
	if err != nil {
		return err
	}
	defer log.Close() // etcd holds its own descriptor
	s.cmd = exec.Command(bin,
		"--name", "test",
		"--data-dir", dataDir,
		"--listen-client-urls", s.Endpoint,
		"--advertise-client-urls", s.Endpoint,
		"--listen-peer-urls", peer,
		"--initial-advertise-peer-urls", peer,
		"--initial-cluster", "test="+peer,
		"--cert-file", filepath.Join(s.Dir, "server.crt"),
		"--key-file", filepath.Join(s.Dir, "server.key"),
		"--client-cert-auth",
		"--trusted-ca-file", s.CAFile,
		"--logger", "zap",
		"--log-outputs", "stderr",
	)
	s.cmd.Stdout, s.cmd.Stderr = log, log
	// etcd dies with the test binary even if the test is killed.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.exited = make(chan struct{})
	go func() { s.cmd.Wait(); close(s.exited) }()
	if err := s.waitHealthy(); err != nil {
		s.stop()
		return err
	}
	return nil
}

// waitHealthy polls etcd's /health with the client certificate until it
// reports healthy, etcd exits, or startTimeout passes.
func (s *Server) waitHealthy() error {
	tlsConfig, err := s.ClientTLS()
	if err != nil {
		return err
	}
	client := &http.Client{
		Timeout:   time.Second,
		Transport: &http.Transport{TLSClientConfig: tlsConfig},
	}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(startTimeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return fmt.Errorf("etcd exited before it became healthy (%v)", s.cmd.ProcessState)
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := client.Get(s.Endpoint + "/health")
		if err != nil {
			last = err
			continue
		}
		body := new(bytes.Buffer)
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && bytes.Contains(body.Bytes(), []byte(`"health":"true"`)) {
			return nil
		}
		last = fmt.Errorf("%s/health: %s %s", s.Endpoint, resp.Status, body)
	}
	return fmt.Errorf("etcd at %s not healthy after %s: %v", s.Endpoint, startTimeout, last)
}

// ClientTLS is a TLS configuration with the client certificate, trusting
// CAFile.
func (s *Server) ClientTLS() (*tls.Config, error) {
	caPEM, err := os.ReadFile(s.CAFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("%s holds no certificate", s.CAFile)
	}
	cert, err := tls.LoadX509KeyPair(s.CertFile, s.KeyFile)
	if err != nil {
		return nil, err
	}
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}, nil
}

// stop kills etcd and waits until it is gone, so no process outlives the
// test (t.TempDir removes its files afterwards).
func (s *Server) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.exited
}

func (s *Server) logTail() string {
	data, _ := os.ReadFile(s.LogFile)
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return "etcd log " + s.LogFile + ":\n" + string(data)
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
