package pki

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOpenSSLAgrees has an independent implementation check what this
// package makes: the chain verifies for its purpose, the key matches the
// certificate, and Inspect's fingerprint is openssl's.
func TestOpenSSLAgrees(t *testing.T) {
	openssl, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl not installed: the chain is still checked by crypto/x509 in TestIssueChainAndExtensions")
	}
	now := time.Now() // openssl verifies against the real clock
	ca, err := NewCA("kubernetes", year, now)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := APIServerSpec("10.32.0.0/16", "", []Host{{"master-0", "10.77.0.11"}}, "", nil, year)
	if err != nil {
		t.Fatal(err)
	}
	server, err := Issue(ca, spec, now)
	if err != nil {
		t.Fatal(err)
	}
	client, err := Issue(ca, AdminSpec(year), now)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	caFile := write("ca.crt", ca.CertPEM)
	serverFile, serverKey := write("apiserver.crt", server.CertPEM), write("apiserver.key", server.KeyPEM)
	clientFile := write("admin.crt", client.CertPEM)
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(openssl, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("openssl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	run("verify", "-x509_strict", "-purpose", "sslserver", "-verify_hostname", "kubernetes.default.svc", "-CAfile", caFile, serverFile)
	run("verify", "-x509_strict", "-purpose", "sslserver", "-verify_ip", "10.32.0.1", "-CAfile", caFile, serverFile)
	run("verify", "-x509_strict", "-purpose", "sslclient", "-CAfile", caFile, clientFile)

	// Negative checks: openssl must refuse what the certificates do not allow.
	if out, err := exec.Command(openssl, "verify", "-purpose", "sslclient", "-CAfile", caFile, serverFile).CombinedOutput(); err == nil {
		t.Errorf("openssl accepted the server certificate as a client:\n%s", out)
	}
	otherCA, _ := NewCA("kubernetes", year, now)
	if out, err := exec.Command(openssl, "verify", "-CAfile", write("other.crt", otherCA.CertPEM), serverFile).CombinedOutput(); err == nil {
		t.Errorf("openssl verified against a different CA:\n%s", out)
	}

	// The key belongs to the certificate.
	certPub := run("x509", "-in", serverFile, "-noout", "-pubkey")
	keyPub := run("pkey", "-in", serverKey, "-pubout")
	if certPub != keyPub {
		t.Error("openssl: private key does not match the certificate")
	}

	fp := run("x509", "-in", serverFile, "-noout", "-fingerprint", "-sha256")
	if want := mustInspect(t, server.CertPEM).SHA256; !strings.Contains(fp, "="+want) {
		t.Errorf("openssl fingerprint %q, Inspect %s", fp, want)
	}
	serial := run("x509", "-in", serverFile, "-noout", "-serial")
	if want := mustInspect(t, server.CertPEM).Serial; !strings.EqualFold(strings.TrimSpace(strings.TrimPrefix(serial, "serial=")), padHex(want)) {
		t.Errorf("openssl serial %q, Inspect %s", serial, want)
	}
}

// padHex pads to whole bytes, as openssl prints serials.
func padHex(s string) string {
	if len(s)%2 == 1 {
		return "0" + s
	}
	return s
}
