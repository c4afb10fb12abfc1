package certs

import (
	"encoding/pem"
	"testing"
	"time"

	"k8s.io/utils/ptr"
)

// cert-manager's defaults: 90 days, renewed at two thirds; a renewBefore
// not shorter than the duration falls back to a third; a percentage.
func TestLifetime(t *testing.T) {
	for _, c := range []struct {
		spec                  CertificateSpec
		duration, renewBefore time.Duration
	}{
		{CertificateSpec{}, 2160 * time.Hour, 720 * time.Hour},
		{CertificateSpec{Duration: "1h", RenewBefore: "59m50s"}, time.Hour, 59*time.Minute + 50*time.Second},
		{CertificateSpec{Duration: "1h", RenewBefore: "2h"}, time.Hour, 20 * time.Minute},
		{CertificateSpec{Duration: "10h", RenewBeforePercentage: ptr.To[int32](25)}, 10 * time.Hour, 150 * time.Minute},
	} {
		d, rb, err := c.spec.lifetime()
		if err != nil || d != c.duration || rb != c.renewBefore {
			t.Errorf("%+v: %s %s %v, want %s %s", c.spec, d, rb, err, c.duration, c.renewBefore)
		}
	}
	if _, _, err := (&CertificateSpec{Duration: "90d"}).lifetime(); err == nil {
		t.Error("duration 90d accepted")
	}
}

// Keys: ECDSA P-256 by default (EC PRIVATE KEY), RSA (RSA PRIVATE KEY),
// PKCS8 and Ed25519 (PRIVATE KEY); a signed pair parses back and matches
// its spec; changing the spec or the signer is a mismatch.
func TestSignAndMismatch(t *testing.T) {
	type pk = struct {
		Algorithm string `json:"algorithm,omitempty"`
		Encoding  string `json:"encoding,omitempty"`
		Size      int    `json:"size,omitempty"`
	}
	for _, c := range []struct {
		key     *pk
		pemType string
		alg     string
	}{
		{nil, "EC PRIVATE KEY", "ECDSA/256"},
		{&pk{Algorithm: "RSA"}, "RSA PRIVATE KEY", "RSA/2048"},
		{&pk{Algorithm: "ECDSA", Size: 384, Encoding: "PKCS8"}, "PRIVATE KEY", "ECDSA/384"},
		{&pk{Algorithm: "Ed25519"}, "PRIVATE KEY", "Ed25519/0"},
	} {
		spec := &CertificateSpec{SecretName: "s", DNSNames: []string{"a.example"}, IPAddresses: []string{"10.0.0.1"}, PrivateKey: c.key}
		out, err := sign(spec, &signer{}, time.Now())
		if err != nil {
			t.Fatalf("%+v: %v", c.key, err)
		}
		if b, _ := pem.Decode(out.keyPEM); b == nil || b.Type != c.pemType {
			t.Errorf("%+v: key PEM %q, want %s", c.key, out.keyPEM, c.pemType)
		}
		kp, err := parseKeyPair(out.certPEM, out.keyPEM)
		if err != nil {
			t.Fatalf("%+v: %v", c.key, err)
		}
		if keyAlg(kp.key) != c.alg {
			t.Errorf("%+v: key %s, want %s", c.key, keyAlg(kp.key), c.alg)
		}
		if why := mismatch(spec, &signer{}, kp); why != "" {
			t.Errorf("%+v: a fresh pair mismatches: %s", c.key, why)
		}
		changed := *spec
		changed.DNSNames = []string{"b.example"}
		if mismatch(&changed, &signer{}, kp) == "" {
			t.Errorf("%+v: new dnsNames do not mismatch", c.key)
		}
	}
	ca, err := sign(&CertificateSpec{IsCA: true, CommonName: "ca"}, &signer{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	caPair, err := parseKeyPair(ca.certPEM, ca.keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	spec := &CertificateSpec{DNSNames: []string{"leaf"}}
	self, _ := sign(spec, &signer{}, time.Now())
	selfPair, _ := parseKeyPair(self.certPEM, self.keyPEM)
	if mismatch(spec, &signer{ca: caPair}, selfPair) == "" {
		t.Error("a self-signed pair matches a ca issuer")
	}
	if _, err := parseKeyPair(ca.certPEM, self.keyPEM); err == nil {
		t.Error("a key of another certificate accepted")
	}
}
