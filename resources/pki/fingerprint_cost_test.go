package pki

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
)

// TestFingerprintIsOneString: a certificate's fingerprint is the colon
// hex openssl prints, made in one buffer: a plan inspects every recorded
// certificate, and formatting each byte apart cost 33 allocations each.
func TestFingerprintIsOneString(t *testing.T) {
	der := []byte("not really DER, any bytes hash")
	sum := sha256.Sum256(der)
	var parts []string
	for _, b := range sum {
		parts = append(parts, fmt.Sprintf("%02X", b))
	}
	if got, want := fingerprint(der), strings.Join(parts, ":"); got != want {
		t.Fatalf("fingerprint = %s, want %s", got, want)
	}
	if allocs := testing.AllocsPerRun(10, func() { fingerprint(der) }); allocs > 2 {
		t.Errorf("%.0f allocations per fingerprint: want at most 2", allocs)
	}
}
