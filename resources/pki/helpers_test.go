package pki

import (
	"crypto"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"testing"
	"time"
)

// t0 is the fixed clock of the tests.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const year = 365 * 24 * time.Hour

func mustCA(t testing.TB, cn string) KeyPair {
	t.Helper()
	ca, err := NewCA(cn, 10*year, t0)
	if err != nil {
		t.Fatalf("NewCA(%q): %v", cn, err)
	}
	return ca
}

func mustIssue(t testing.TB, ca KeyPair, spec CertSpec) KeyPair {
	t.Helper()
	kp, err := Issue(ca, spec, t0)
	if err != nil {
		t.Fatalf("Issue(%q): %v", spec.CommonName, err)
	}
	return kp
}

func mustInspect(t testing.TB, certPEM string) Info {
	t.Helper()
	info, err := Inspect(certPEM)
	if err != nil {
		t.Fatalf("Inspect: %v", err)
	}
	return info
}

// Checks only the tests make: eggo itself never verifies a chain or a
// service-account pair it did not just make.

// verify checks that certPEM chains to the CA in caPEM and is valid at now.
// Any extended key usage is accepted; callers that care check Info.
func verify(certPEM, caPEM string, now time.Time) error {
	cert, err := ParseCertificate(certPEM)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	ca, err := ParseCertificate(caPEM)
	if err != nil {
		return fmt.Errorf("verify certificate %q: CA: %w", cert.Subject.CommonName, err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	_, err = cert.Verify(x509.VerifyOptions{
		Roots:       roots,
		CurrentTime: now,
		KeyUsages:   []x509.ExtKeyUsage{x509.ExtKeyUsageAny},
	})
	if err != nil {
		return fmt.Errorf("certificate %q does not verify against CA %q: %w",
			cert.Subject.CommonName, ca.Subject.CommonName, err)
	}
	return nil
}

// parsePublicKey decodes a PKIX "PUBLIC KEY" block, such as sa.pub.
func parsePublicKey(pubPEM string) (crypto.PublicKey, error) {
	block, _ := pem.Decode([]byte(pubPEM))
	if block == nil || block.Type != "PUBLIC KEY" {
		return nil, errors.New("no PUBLIC KEY block found in PEM")
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parse public key: %w", err)
	}
	return pub, nil
}

// checkSAKey reports whether the public half matches the private half.
func checkSAKey(k ServiceAccountKey) error {
	priv, err := ParsePrivateKey(k.PrivatePEM)
	if err != nil {
		return fmt.Errorf("service-account key: %w", err)
	}
	pub, err := parsePublicKey(k.PublicPEM)
	if err != nil {
		return fmt.Errorf("service-account public key: %w", err)
	}
	if !publicKeysEqual(pub, priv.Public()) {
		return fmt.Errorf("service-account public key does not match the private key")
	}
	return nil
}

func b64(s string) string {
	return base64.StdEncoding.EncodeToString([]byte(s))
}
