package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"math/big"
	"net"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNewCA(t *testing.T) {
	ca := mustCA(t, "kubernetes")
	cert, key, err := ca.Parse()
	if err != nil {
		t.Fatal(err)
	}
	if !cert.IsCA || !cert.BasicConstraintsValid || cert.MaxPathLen != 0 || !cert.MaxPathLenZero {
		t.Errorf("CA constraints: IsCA=%v MaxPathLen=%d zero=%v", cert.IsCA, cert.MaxPathLen, cert.MaxPathLenZero)
	}
	want := x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	if cert.KeyUsage != want {
		t.Errorf("KeyUsage = %b, want %b", cert.KeyUsage, want)
	}
	if len(cert.SubjectKeyId) != 20 {
		t.Errorf("SubjectKeyId has %d bytes, want 20", len(cert.SubjectKeyId))
	}
	if _, ok := key.(*ecdsa.PrivateKey); !ok || cert.PublicKeyAlgorithm != x509.ECDSA {
		t.Errorf("key type %T, want ECDSA", key)
	}
	if !cert.NotBefore.Equal(t0.Add(-5*time.Minute)) || !cert.NotAfter.Equal(t0.Add(10*year)) {
		t.Errorf("validity %s – %s", cert.NotBefore, cert.NotAfter)
	}
	if err := cert.CheckSignatureFrom(cert); err != nil {
		t.Errorf("CA is not self-signed: %v", err)
	}
}

func TestIssueChainAndExtensions(t *testing.T) {
	ca := mustCA(t, "kubernetes")
	caCert, _ := ParseCertificate(ca.CertPEM)
	tests := []struct {
		name     string
		spec     CertSpec
		wantEKU  []x509.ExtKeyUsage
		wantDNS  []string
		wantIPs  []string
		wantOrgs []string
	}{
		{
			name: "server with mixed SANs unsorted and duplicated",
			spec: CertSpec{CommonName: "kube-apiserver", Server: true, Validity: year,
				DNSNames: []string{"Kubernetes", "b.example", "a.example", "kubernetes"},
				IPs:      []string{"10.0.0.10", "10.0.0.9", "::1", "10.0.0.9"}},
			wantEKU: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			wantDNS: []string{"a.example", "b.example", "kubernetes"},
			wantIPs: []string{"10.0.0.9", "10.0.0.10", "::1"},
		},
		{
			name:     "client with groups",
			spec:     AdminSpec(year),
			wantEKU:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
			wantOrgs: []string{"system:masters"},
		},
		{
			name: "server and client",
			spec: CertSpec{CommonName: "etcd-0", Server: true, Client: true, Validity: year,
				DNSNames: []string{"etcd-0"}, IPs: []string{"127.0.0.1"}},
			wantEKU: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
			wantDNS: []string{"etcd-0"},
			wantIPs: []string{"127.0.0.1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kp := mustIssue(t, ca, tt.spec)
			if err := verify(kp.CertPEM, ca.CertPEM, t0); err != nil {
				t.Fatalf("Verify: %v", err)
			}
			cert, _, err := kp.Parse()
			if err != nil {
				t.Fatal(err)
			}
			if cert.IsCA {
				t.Error("leaf is a CA")
			}
			if !slices.Equal(cert.ExtKeyUsage, tt.wantEKU) {
				t.Errorf("ExtKeyUsage = %v, want %v", cert.ExtKeyUsage, tt.wantEKU)
			}
			if cert.KeyUsage != x509.KeyUsageDigitalSignature {
				t.Errorf("KeyUsage = %b", cert.KeyUsage)
			}
			if !slices.Equal(cert.DNSNames, tt.wantDNS) && !(len(cert.DNSNames) == 0 && len(tt.wantDNS) == 0) {
				t.Errorf("DNSNames = %v, want %v", cert.DNSNames, tt.wantDNS)
			}
			info := mustInspect(t, kp.CertPEM)
			if !slices.Equal(info.IPs, tt.wantIPs) && !(len(info.IPs) == 0 && len(tt.wantIPs) == 0) {
				t.Errorf("IPs = %v, want %v", info.IPs, tt.wantIPs)
			}
			if !slices.Equal(cert.Subject.Organization, tt.wantOrgs) && !(len(cert.Subject.Organization) == 0 && len(tt.wantOrgs) == 0) {
				t.Errorf("Organization = %v, want %v", cert.Subject.Organization, tt.wantOrgs)
			}
			if cert.Subject.CommonName != tt.spec.CommonName {
				t.Errorf("CN = %q", cert.Subject.CommonName)
			}
			if string(cert.AuthorityKeyId) != string(caCert.SubjectKeyId) || len(cert.SubjectKeyId) == 0 {
				t.Errorf("AKI %x / CA SKI %x / SKI %x", cert.AuthorityKeyId, caCert.SubjectKeyId, cert.SubjectKeyId)
			}
			if !cert.NotBefore.Equal(t0.Add(-5*time.Minute)) || !cert.NotAfter.Equal(t0.Add(year)) {
				t.Errorf("validity %s – %s", cert.NotBefore, cert.NotAfter)
			}
			if cert.SerialNumber.Sign() <= 0 || cert.SerialNumber.BitLen() > 128 {
				t.Errorf("serial %s is not a positive 128-bit number", cert.SerialNumber)
			}
		})
	}
}

func TestIssueSerialsDiffer(t *testing.T) {
	ca := mustCA(t, "kubernetes")
	seen := map[string]bool{}
	for range 20 {
		s := mustInspect(t, mustIssue(t, ca, AdminSpec(year)).CertPEM).Serial
		if seen[s] {
			t.Fatalf("serial %s issued twice", s)
		}
		seen[s] = true
	}
	// 20 random 128-bit serials all shorter than 100 bits would mean the
	// serial is not really 128 bits wide.
	long := 0
	for s := range seen {
		n, _ := new(big.Int).SetString(s, 16)
		if n.BitLen() > 100 {
			long++
		}
	}
	if long == 0 {
		t.Error("no serial uses more than 100 bits")
	}
}

func TestIssueClampsToCAExpiry(t *testing.T) {
	ca, err := NewCA("short", 30*24*time.Hour, t0)
	if err != nil {
		t.Fatal(err)
	}
	kp := mustIssue(t, ca, AdminSpec(year))
	if got := mustInspect(t, kp.CertPEM).NotAfter; !got.Equal(t0.Add(30 * 24 * time.Hour)) {
		t.Errorf("NotAfter = %s, want the CA's", got)
	}
	if _, err := Issue(ca, AdminSpec(year), t0.Add(31*24*time.Hour)); err == nil ||
		!strings.Contains(err.Error(), `CA "short" expired`) {
		t.Errorf("issue from expired CA: %v", err)
	}
}

func TestVerifyRejects(t *testing.T) {
	ca := mustCA(t, "kubernetes")
	other := mustCA(t, "kubernetes") // same name, different key
	kp := mustIssue(t, ca, AdminSpec(year))
	if err := verify(kp.CertPEM, other.CertPEM, t0); err == nil {
		t.Error("verified against a different CA with the same name")
	}
	if err := verify(kp.CertPEM, ca.CertPEM, t0.Add(2*year)); err == nil ||
		!strings.Contains(err.Error(), `"kubernetes-admin"`) {
		t.Errorf("expired certificate: %v", err)
	}
	if err := verify("garbage", ca.CertPEM, t0); err == nil {
		t.Error("verified garbage")
	}
	if err := verify(kp.CertPEM, "", t0); err == nil || !strings.Contains(err.Error(), "CA") {
		t.Errorf("empty CA: %v", err)
	}
}

func TestIssueBadInputs(t *testing.T) {
	ca := mustCA(t, "kubernetes")
	leaf := mustIssue(t, ca, AdminSpec(year))
	otherKey := mustIssue(t, ca, AdminSpec(year)).KeyPEM
	ok := AdminSpec(year)
	tests := []struct {
		name string
		ca   KeyPair
		spec CertSpec
		want string
	}{
		{"empty CN", ca, CertSpec{Client: true, Validity: year}, "common name is empty"},
		{"no usage", ca, CertSpec{CommonName: "x", Validity: year}, `"x": no usage`},
		{"zero validity", ca, CertSpec{CommonName: "x", Client: true}, "validity 0s is not positive"},
		{"bad IP", ca, CertSpec{CommonName: "x", Server: true, Validity: year, IPs: []string{"10.0.0.300"}}, `IP SAN "10.0.0.300"`},
		{"bad DNS", ca, CertSpec{CommonName: "x", Server: true, Validity: year, DNSNames: []string{"https://a"}}, `DNS name "https://a"`},
		{"DNS with space", ca, CertSpec{CommonName: "x", Server: true, Validity: year, DNSNames: []string{"a b"}}, `DNS name "a b"`},
		{"CA cert is garbage", KeyPair{CertPEM: "nope", KeyPEM: ca.KeyPEM}, ok, "no CERTIFICATE block"},
		{"CA key missing", KeyPair{CertPEM: ca.CertPEM}, ok, "private key PEM is empty"},
		{"CA key garbage", KeyPair{CertPEM: ca.CertPEM, KeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}, ok, "parse PRIVATE KEY"},
		{"CA key mismatched", KeyPair{CertPEM: ca.CertPEM, KeyPEM: otherKey}, ok, `does not match certificate "kubernetes"`},
		{"leaf used as CA", leaf, ok, `"kubernetes-admin" is not a CA`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Issue(tt.ca, tt.spec, t0)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "BEGIN") || strings.Contains(err.Error(), otherKey[30:60]) {
				t.Errorf("error leaks PEM: %v", err)
			}
		})
	}
}

func TestParsePrivateKeyFormats(t *testing.T) {
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), randReader)
	sec1, _ := x509.MarshalECPrivateKey(ecKey)
	sa, err := NewServiceAccountKey()
	if err != nil {
		t.Fatal(err)
	}
	rsaSigner, _ := ParsePrivateKey(sa.PrivatePEM)
	rsaKey := rsaSigner.(*rsa.PrivateKey)
	for name, tt := range map[string]struct {
		pem string
		pub crypto.PublicKey
	}{
		"SEC1":   {"-----BEGIN EC PRIVATE KEY-----\n" + b64Lines(sec1) + "-----END EC PRIVATE KEY-----\n", &ecKey.PublicKey},
		"PKCS#1": {"-----BEGIN RSA PRIVATE KEY-----\n" + b64Lines(x509.MarshalPKCS1PrivateKey(rsaKey)) + "-----END RSA PRIVATE KEY-----\n", &rsaKey.PublicKey},
	} {
		got, err := ParsePrivateKey(tt.pem)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !publicKeysEqual(tt.pub, got.Public()) {
			t.Errorf("%s: different key", name)
		}
	}
	if _, err := ParsePrivateKey("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"); err == nil ||
		!strings.Contains(err.Error(), `"CERTIFICATE" is not a private key`) {
		t.Errorf("certificate as key: %v", err)
	}
}

func b64Lines(der []byte) string {
	s := b64(string(der))
	var b strings.Builder
	for len(s) > 64 {
		b.WriteString(s[:64] + "\n")
		s = s[64:]
	}
	return b.String() + s + "\n"
}

// TestMutualTLS uses issued certificates the way the cluster will: an
// apiserver serving certificate and an admin client certificate complete a
// mutual TLS handshake trusting only the CA.
func TestMutualTLS(t *testing.T) {
	ca := mustCA(t, "kubernetes")
	now := time.Now()
	spec, err := APIServerSpec("10.32.0.0/16", "", []Host{{"master-0", "127.0.0.1"}}, "", nil, year)
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
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(ca.CertPEM))
	serverPair, err := tls.X509KeyPair([]byte(server.CertPEM), []byte(server.KeyPEM))
	if err != nil {
		t.Fatal(err)
	}
	clientPair, err := tls.X509KeyPair([]byte(client.CertPEM), []byte(client.KeyPEM))
	if err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	srv := tls.Server(a, &tls.Config{Certificates: []tls.Certificate{serverPair}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert})
	errc := make(chan error, 1)
	go func() { errc <- srv.Handshake() }()
	cli := tls.Client(b, &tls.Config{Certificates: []tls.Certificate{clientPair}, RootCAs: pool, ServerName: "kubernetes.default.svc"})
	if err := cli.Handshake(); err != nil {
		t.Fatalf("client handshake: %v", err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("server handshake: %v", err)
	}
	if got := srv.ConnectionState().PeerCertificates[0].Subject.CommonName; got != "kubernetes-admin" {
		t.Errorf("server saw client %q", got)
	}
}
