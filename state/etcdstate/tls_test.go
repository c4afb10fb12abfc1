package etcdstate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/harness/etcdtest"
)

// openErr opens c, which must fail, and returns the message.
func openErr(t *testing.T, c Config) string {
	t.Helper()
	c.DialTimeout = time.Second // failures wait for it
	s, err := Open(bg(), c)
	if err == nil {
		s.Close()
		t.Fatalf("Open(%+v) succeeded, want an error", c)
	}
	return err.Error()
}

func wantIn(t *testing.T, msg string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q lacks %q", msg, w)
		}
	}
}

func TestOpenExplainsTLSFailures(t *testing.T) {
	srv := etcdtest.Start(t)

	t.Run("no client certificate", func(t *testing.T) {
		c := config(srv, "demo")
		c.CertFile, c.KeyFile = "", ""
		wantIn(t, openErr(t, c), srv.Endpoint, "refused this client", "no client certificate")
	})
	t.Run("wrong CA", func(t *testing.T) {
		c := config(srv, "demo")
		c.CAFile = srv.OtherCAFile
		wantIn(t, openErr(t, c), srv.Endpoint, "not signed by the CA in "+srv.OtherCAFile)
	})
	t.Run("plain http to a TLS server", func(t *testing.T) {
		c := config(srv, "demo")
		c.Endpoints = []string{"http" + strings.TrimPrefix(srv.Endpoint, "https")}
		wantIn(t, openErr(t, c), "speaks TLS", srv.Endpoint)
	})
	t.Run("nothing listening", func(t *testing.T) {
		c := config(srv, "demo")
		c.Endpoints = []string{"https://127.0.0.1:1"}
		wantIn(t, openErr(t, c), "https://127.0.0.1:1", "cannot connect")
	})
	t.Run("missing CA file", func(t *testing.T) {
		c := config(srv, "demo")
		c.CAFile = filepath.Join(t.TempDir(), "absent-ca.crt")
		wantIn(t, openErr(t, c), c.CAFile)
	})
	t.Run("CA file without a certificate", func(t *testing.T) {
		c := config(srv, "demo")
		c.CAFile = filepath.Join(t.TempDir(), "empty.crt")
		os.WriteFile(c.CAFile, []byte("not PEM"), 0o600)
		wantIn(t, openErr(t, c), c.CAFile, "no PEM certificate")
	})
	t.Run("key that does not match the certificate", func(t *testing.T) {
		c := config(srv, "demo")
		c.KeyFile = filepath.Join(filepath.Dir(srv.KeyFile), "server.key")
		msg := openErr(t, c)
		wantIn(t, msg, c.CertFile, c.KeyFile)
		keyPEM, _ := os.ReadFile(c.KeyFile)
		if strings.Contains(msg, string(keyPEM[40:80])) {
			t.Errorf("error %q quotes the private key", msg)
		}
	})
	t.Run("certificate without key", func(t *testing.T) {
		c := config(srv, "demo")
		c.KeyFile = ""
		wantIn(t, openErr(t, c), "both a cert file and a key file")
	})
}

func TestOpenValidatesTheConfig(t *testing.T) {
	for name, c := range map[string]Config{
		"no endpoints":    {Cluster: "demo"},
		"no cluster":      {Endpoints: []string{"https://127.0.0.1:1"}},
		"slash in name":   {Endpoints: []string{"https://127.0.0.1:1"}, Cluster: "a/b"},
		"empty endpoint":  {Endpoints: []string{" "}, Cluster: "demo"},
		"key without crt": {Endpoints: []string{"https://127.0.0.1:1"}, Cluster: "demo", KeyFile: "k.pem"},
	} {
		if _, err := Open(bg(), c); err == nil || !strings.Contains(err.Error(), "etcd backend") {
			t.Errorf("%s: Open = %v, want a config error", name, err)
		}
	}
}
