package etcdtest

import (
	"crypto/tls"
	"net/http"
	"os"
	"syscall"
	"testing"
)

func TestStartServesTLSAndStopLeavesNoProcess(t *testing.T) {
	var s *Server
	t.Run("server", func(t *testing.T) {
		s = Start(t)
		tlsConfig, err := s.ClientTLS()
		if err != nil {
			t.Fatal(err)
		}
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}}
		resp, err := client.Get(s.Endpoint + "/health")
		if err != nil {
			t.Fatalf("health with the client certificate: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("health: %s", resp.Status)
		}

		// Without a client certificate the server refuses.
		noCert := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: tlsConfig.RootCAs}}}
		if resp, err := noCert.Get(s.Endpoint + "/health"); err == nil {
			resp.Body.Close()
			t.Fatalf("a client without a certificate got %s, want a refused handshake", resp.Status)
		}
	})
	// The subtest's cleanup has run: etcd must be gone and its files too.
	if err := s.proc.Signal(syscall.Signal(0)); err == nil {
		t.Errorf("etcd pid %d still runs after the test ended", s.proc.Pid())
	}
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Errorf("%s still exists after the test ended (%v)", s.Dir, err)
	}
}
