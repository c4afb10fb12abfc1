package kubestate

import (
	"bytes"
	"crypto/x509"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filippo.io/age"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/eggo-project/eggo/internal/harness/apitest"
	"github.com/eggo-project/eggo/internal/harness/pkitest"
	"github.com/eggo-project/eggo/state"
)

const (
	plainKey   = "PLAINTEXT-CA-KEY-5e1f9b"
	plainToken = "PLAINTEXT-TOKEN-77ac02"
)

// testSealed writes a state sealed to an age key, as the engine does on
// every write, and reads every Secret of the namespace back as stored:
// no secret is there in plain text, and the key opens them again.
func (e *env) testSealed(t *testing.T) {
	s := open(t, e.config(t, "sealed"))
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	kr, err := state.NewKeyring([]string{id.Recipient().String()}, []age.Identity{id})
	if err != nil {
		t.Fatal(err)
	}
	st := state.New()
	st.Resources = []state.Resource{{Address: "pki.cluster_ca", Kind: "pki",
		Attributes: map[string]any{"cert_pem": "CERT", "key_pem": plainKey}, Sensitive: []string{"key_pem"}}}
	st.Outputs = map[string]any{"admin_token": plainToken}
	st.SensitiveOutputs = []string{"admin_token"}
	data, err := state.MarshalWith(st, kr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(bg(), data, ""); err != nil {
		t.Fatal(err)
	}
	secrets := e.secrets(t, s)
	if len(secrets) == 0 {
		t.Fatal("no Secret was written")
	}
	for _, sec := range secrets {
		for k, v := range sec.Data {
			for _, plain := range []string{plainKey, plainToken} {
				if bytes.Contains(v, []byte(plain)) {
					t.Fatalf("Secret %s key %s holds %q in plain text", sec.Name, k, plain)
				}
			}
		}
		for k, v := range sec.Annotations {
			if strings.Contains(v, plainKey) || strings.Contains(v, plainToken) {
				t.Fatalf("Secret %s annotation %s holds a secret", sec.Name, k)
			}
		}
	}
	stored, _, err := s.Get(bg())
	if err != nil {
		t.Fatal(err)
	}
	back, err := state.DecodeWith(stored, s.Describe(), kr)
	if err != nil {
		t.Fatal(err)
	}
	if back.Resources[0].Attributes["key_pem"] != plainKey || back.Outputs["admin_token"] != plainToken {
		t.Fatalf("the identity does not open what was stored: %v %v", back.Resources[0].Attributes, back.Outputs)
	}
}

// testOpenErrors: Open says what is wrong, naming the kubeconfig, the
// context, the namespace or the permission.
func (e *env) testOpenErrors(t *testing.T) {
	c := e.config(t, "demo")
	openErr := func(c Config) string {
		t.Helper()
		c.RequestTimeout = 5 * time.Second
		s, err := Open(bg(), c)
		if err == nil {
			s.Close()
			t.Fatalf("Open(%+v) succeeded, want an error", c)
		}
		t.Log(err)
		return err.Error()
	}
	t.Run("missing kubeconfig", func(t *testing.T) {
		bad := c
		bad.Kubeconfig = filepath.Join(t.TempDir(), "absent")
		wantIn(t, openErr(bad), "kubernetes backend", bad.Kubeconfig)
	})
	t.Run("unknown context", func(t *testing.T) {
		bad := c
		bad.Context = "nosuch"
		wantIn(t, openErr(bad), "kubernetes backend", "nosuch")
	})
	t.Run("a user without permissions", func(t *testing.T) {
		bad := c
		bad.Kubeconfig = e.srv.UserKubeconfig(t, "mallory")
		wantIn(t, openErr(bad), "forbidden", "namespace "+c.Namespace, bad.Kubeconfig, "secrets")
	})
	t.Run("a server signed by another CA", func(t *testing.T) {
		dir := t.TempDir()
		other, err := pkitest.NewAuthority(dir, "other-ca")
		if err != nil {
			t.Fatal(err)
		}
		cert, key, err := other.Issue(dir, "admin", pkitest.Leaf{Usage: x509.ExtKeyUsageClientAuth})
		if err != nil {
			t.Fatal(err)
		}
		bad := c
		bad.Kubeconfig = filepath.Join(dir, "kubeconfig")
		if err := apitest.WriteKubeconfig(bad.Kubeconfig, e.srv.URL, other.CertFile, cert, key); err != nil {
			t.Fatal(err)
		}
		wantIn(t, openErr(bad), e.srv.URL, "not signed by the CA", bad.Kubeconfig)
	})
	t.Run("nothing listening", func(t *testing.T) {
		dir := t.TempDir()
		bad := c
		bad.Kubeconfig = filepath.Join(dir, "kubeconfig")
		raw, err := clientcmd.LoadFromFile(e.srv.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		raw.Clusters["test"].Server = "https://127.0.0.1:1"
		if err := clientcmd.WriteToFile(*raw, bad.Kubeconfig); err != nil {
			t.Fatal(err)
		}
		wantIn(t, openErr(bad), "cannot reach https://127.0.0.1:1")
	})
	t.Run("an invalid cluster name", func(t *testing.T) {
		bad := c
		bad.Cluster = "Demo_1"
		wantIn(t, openErr(bad), "must be a DNS label")
	})
	t.Run("a namespace that does not exist", func(t *testing.T) {
		good := c
		good.Namespace = "absent-ns"
		s := open(t, good) // reading finds nothing: no state yet
		_, err := s.Put(bg(), []byte("x"), "")
		if err == nil || errors.As(err, new(*StaleError)) {
			t.Fatalf("Put into a missing namespace: %v", err)
		}
		t.Log(err)
		wantIn(t, err.Error(), "namespace absent-ns does not exist", "kubectl create namespace absent-ns")
	})
}
