package pki

import (
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
