package apitest

import (
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/eggo-project/eggo/internal/harness/pkitest"
)

// files are the apiserver's certificates and keys.
type files struct {
	ca                    *pkitest.Authority
	caFile                string // signs the serving and the client certificates
	serverCert, serverKey string // for 127.0.0.1 and localhost
	saKey, saPub          string // signs and verifies service-account tokens
	adminCert, adminKey   string // a client in group system:masters
}

func writeFiles(dir string) (files, error) {
	var f files
	ca, err := pkitest.NewAuthority(dir, "ca")
	if err != nil {
		return f, err
	}
	f.ca, f.caFile = ca, ca.CertFile
	serving := pkitest.Leaf{Usage: x509.ExtKeyUsageServerAuth,
		IPs: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"}}
	if f.serverCert, f.serverKey, err = ca.Issue(dir, "apiserver", serving); err != nil {
		return f, err
	}
	if f.saKey, f.saPub, err = pkitest.KeyPair(dir, "service-account"); err != nil {
		return f, err
	}
	admin := pkitest.Leaf{Usage: x509.ExtKeyUsageClientAuth, Organization: []string{"system:masters"}}
	f.adminCert, f.adminKey, err = ca.Issue(dir, "admin", admin)
	return f, err
}

// connect writes the admin kubeconfig for s.URL and makes the client.
func (s *Server) connect() error {
	s.Kubeconfig = filepath.Join(s.Dir, "admin.kubeconfig")
	if err := WriteKubeconfig(s.Kubeconfig, s.URL, s.certs.caFile, s.certs.adminCert, s.certs.adminKey); err != nil {
		return err
	}
	s.Config = &rest.Config{
		Host: s.URL,
		TLSClientConfig: rest.TLSClientConfig{
			CAFile: s.certs.caFile, CertFile: s.certs.adminCert, KeyFile: s.certs.adminKey,
		},
		Timeout: 30 * time.Second,
		QPS:     100, Burst: 200,
	}
	client, err := kubernetes.NewForConfig(s.Config)
	if err != nil {
		return err
	}
	s.Client = client
	return nil
}

// UserKubeconfig writes a kubeconfig for user in groups (a client
// certificate the server trusts) and returns its path: RBAC applies to
// it, unlike the admin's.
func (s *Server) UserKubeconfig(t testing.TB, user string, groups ...string) string {
	t.Helper()
	dir := t.TempDir()
	// The certificate's common name is the user, its organizations the groups.
	cert, key, err := s.certs.ca.Issue(dir, user, pkitest.Leaf{Usage: x509.ExtKeyUsageClientAuth, Organization: groups})
	if err != nil {
		t.Fatalf("a certificate for %s: %v", user, err)
	}
	path := filepath.Join(dir, "kubeconfig")
	if err := WriteKubeconfig(path, s.URL, s.certs.caFile, cert, key); err != nil {
		t.Fatal(err)
	}
	return path
}

// WriteKubeconfig writes a kubeconfig with one context, "test", that
// reaches server as the client certificate says. Tests use it to make
// users other than the admin.
func WriteKubeconfig(path, server, caFile, certFile, keyFile string) error {
	text := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: %q
    certificate-authority: %q
users:
- name: test
  user:
    client-certificate: %q
    client-key: %q
contexts:
- name: test
  context:
    cluster: test
    user: test
current-context: test
`, server, caFile, certFile, keyFile)
	return os.WriteFile(path, []byte(text), 0o600)
}

// waitReady polls /readyz until it answers ok, the apiserver exits, or
// readyTimeout passes.
func (s *Server) waitReady() error {
	return s.proc.WaitReady(100*time.Millisecond, readyTimeout, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		body, err := s.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && string(body) == "ok" {
			return nil
		}
		return fmt.Errorf("%v %s", err, body)
	})
}
