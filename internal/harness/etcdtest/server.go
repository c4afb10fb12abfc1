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
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/harness/pkitest"
	"github.com/eggo-project/eggo/internal/harness/proctest"
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

	proc *proctest.Process
}

// startTimeout bounds how long etcd may take to answer its health check.
const startTimeout = 20 * time.Second

// Start starts an etcd for t, or skips t when no etcd binary is installed
// (`make deps` installs it). The server is killed and its files removed
// when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := proctest.Binary(Binary, "ETCD_BIN")
	if err != nil {
		t.Skipf("no etcd server at %s (make deps installs Debian's etcd-server): %v", bin, err)
	}
	s := &Server{Dir: t.TempDir()}
	if err := s.writeCertificates(); err != nil {
		t.Fatalf("etcd test certificates: %v", err)
	}
	if err := proctest.RetryPortRace(func() error { return s.start(bin) }); err != nil {
		t.Fatalf("starting etcd: %v\n%s", err, proctest.LogTail("etcd", s.LogFile, 4000))
	}
	// Killed and reaped before t.TempDir removes its files.
	t.Cleanup(s.proc.Stop)
	return s
}

func (s *Server) writeCertificates() error {
	ca, err := pkitest.NewAuthority(s.Dir, "ca")
	if err != nil {
		return err
	}
	s.CAFile = ca.CertFile
	other, err := pkitest.NewAuthority(s.Dir, "other-ca")
	if err != nil {
		return err
	}
	s.OtherCAFile = other.CertFile
	server := pkitest.Leaf{Usage: x509.ExtKeyUsageServerAuth, IPs: []net.IP{net.ParseIP("127.0.0.1")}}
	if _, _, err = ca.Issue(s.Dir, "server", server); err != nil {
		return err
	}
	s.CertFile, s.KeyFile, err = ca.Issue(s.Dir, "client", pkitest.Leaf{Usage: x509.ExtKeyUsageClientAuth})
	return err
}

// start runs etcd on fresh ports and waits until it is healthy.
func (s *Server) start(bin string) error {
	clientPort, err := proctest.FreePort()
	if err != nil {
		return err
	}
	peerPort, err := proctest.FreePort()
	if err != nil {
		return err
	}
	s.Endpoint = "https://127.0.0.1:" + strconv.Itoa(clientPort)
	peer := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	dataDir := filepath.Join(s.Dir, "data")
	if err := os.RemoveAll(dataDir); err != nil { // a failed attempt's
		return err
	}
	cmd := exec.Command(bin,
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
	s.LogFile = filepath.Join(s.Dir, "etcd.log")
	if s.proc, err = proctest.Start("etcd at "+s.Endpoint, cmd, s.LogFile); err != nil {
		return err
	}
	if err := s.waitHealthy(); err != nil {
		s.proc.Stop()
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
	return s.proc.WaitReady(50*time.Millisecond, startTimeout, func() error {
		resp, err := client.Get(s.Endpoint + "/health")
		if err != nil {
			return err
		}
		body := new(bytes.Buffer)
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && bytes.Contains(body.Bytes(), []byte(`"health":"true"`)) {
			return nil
		}
		return fmt.Errorf("%s/health: %s %s", s.Endpoint, resp.Status, body)
	})
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
