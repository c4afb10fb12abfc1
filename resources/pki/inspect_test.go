package pki

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestInspect(t *testing.T) {
	ca := mustCA(t, "kubernetes")
	kp := mustIssue(t, ca, CertSpec{CommonName: "system:node:w0", Organization: []string{"system:nodes"},
		Server: true, Client: true, Validity: year,
		DNSNames: []string{"w0"}, IPs: []string{"10.0.0.10", "10.0.0.9", "fd00::1"}})
	info := mustInspect(t, kp.CertPEM)
	cert, _ := ParseCertificate(kp.CertPEM)
	sum := sha256.Sum256(cert.Raw)
	want := Info{
		Subject:      "CN=system:node:w0,O=system:nodes",
		CommonName:   "system:node:w0",
		Organization: []string{"system:nodes"},
		Issuer:       "CN=kubernetes",
		NotBefore:    t0.Add(-5 * time.Minute),
		NotAfter:     t0.Add(year),
		DNSNames:     []string{"w0"},
		IPs:          []string{"10.0.0.9", "10.0.0.10", "fd00::1"},
		Serial:       cert.SerialNumber.Text(16),
		Server:       true,
		Client:       true,
		SHA256:       colonHex(sum[:]),
	}
	if info.Subject != want.Subject || info.Issuer != want.Issuer || info.CommonName != want.CommonName ||
		!slices.Equal(info.Organization, want.Organization) || !info.NotBefore.Equal(want.NotBefore) ||
		!info.NotAfter.Equal(want.NotAfter) || !slices.Equal(info.DNSNames, want.DNSNames) ||
		!slices.Equal(info.IPs, want.IPs) || info.Serial != want.Serial || info.IsCA ||
		!info.Server || !info.Client || info.SHA256 != want.SHA256 {
		t.Errorf("Inspect\n got %+v\nwant %+v", info, want)
	}
	if caInfo := mustInspect(t, ca.CertPEM); !caInfo.IsCA || caInfo.Subject != "CN=kubernetes" {
		t.Errorf("CA info %+v", caInfo)
	}
	// A chain file: the first certificate is the one inspected.
	if got := mustInspect(t, kp.KeyPEM+kp.CertPEM+ca.CertPEM); got.CommonName != "system:node:w0" {
		t.Errorf("first certificate of a bundle: %q", got.CommonName)
	}
}

func TestInspectBadPEM(t *testing.T) {
	for in, want := range map[string]string{
		"":      "certificate PEM is empty",
		"hello": "no CERTIFICATE block found",
		"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n": "parse certificate",
	} {
		if _, err := Inspect(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Inspect(%q) = %v, want %q", in, err, want)
		}
	}
}

func colonHex(b []byte) string {
	h := strings.ToUpper(hex.EncodeToString(b))
	var parts []string
	for i := 0; i < len(h); i += 2 {
		parts = append(parts, h[i:i+2])
	}
	return strings.Join(parts, ":")
}
