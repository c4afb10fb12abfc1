package certs

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"
)

// CertificateSpec is the part of a Certificate's spec eggo-certs serves.
type CertificateSpec struct {
	SecretName     string   `json:"secretName"`
	CommonName     string   `json:"commonName,omitempty"`
	DNSNames       []string `json:"dnsNames,omitempty"`
	IPAddresses    []string `json:"ipAddresses,omitempty"`
	URIs           []string `json:"uris,omitempty"`
	EmailAddresses []string `json:"emailAddresses,omitempty"`
	Subject        *struct {
		Organizations       []string `json:"organizations,omitempty"`
		OrganizationalUnits []string `json:"organizationalUnits,omitempty"`
	} `json:"subject,omitempty"`
	IsCA                  bool     `json:"isCA,omitempty"`
	Duration              string   `json:"duration,omitempty"`
	RenewBefore           string   `json:"renewBefore,omitempty"`
	RenewBeforePercentage *int32   `json:"renewBeforePercentage,omitempty"`
	Usages                []string `json:"usages,omitempty"`
	IssuerRef             struct {
		Name  string `json:"name"`
		Kind  string `json:"kind,omitempty"`
		Group string `json:"group,omitempty"`
	} `json:"issuerRef"`
	PrivateKey *struct {
		Algorithm string `json:"algorithm,omitempty"`
		Encoding  string `json:"encoding,omitempty"`
		Size      int    `json:"size,omitempty"`
	} `json:"privateKey,omitempty"`
	SecretTemplate *struct {
		Annotations map[string]string `json:"annotations,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
	} `json:"secretTemplate,omitempty"`
}

// DefaultDuration is cert-manager's: 90 days.
const DefaultDuration = 90 * 24 * time.Hour

// lifetime is the certificate's duration and how long before its end it
// is renewed (cert-manager's defaults: 90 days, a third of the duration;
// a renewBefore not shorter than the duration falls back to the default).
func (s *CertificateSpec) lifetime() (duration, renewBefore time.Duration, err error) {
	duration = DefaultDuration
	if s.Duration != "" {
		if duration, err = time.ParseDuration(s.Duration); err != nil || duration <= 0 {
			return 0, 0, fmt.Errorf("spec.duration %q: not a positive duration", s.Duration)
		}
	}
	renewBefore = duration / 3
	switch {
	case s.RenewBefore != "":
		rb, err := time.ParseDuration(s.RenewBefore)
		if err != nil || rb <= 0 {
			return 0, 0, fmt.Errorf("spec.renewBefore %q: not a positive duration", s.RenewBefore)
		}
		if rb < duration {
			renewBefore = rb
		}
	case s.RenewBeforePercentage != nil && *s.RenewBeforePercentage > 0 && *s.RenewBeforePercentage < 100:
		renewBefore = duration * time.Duration(*s.RenewBeforePercentage) / 100
	}
	return duration, renewBefore, nil
}

// keyAlgorithm is the private key's algorithm and size, defaulted.
func (s *CertificateSpec) keyAlgorithm() (alg string, size int, err error) {
	alg, size = "ECDSA", 0
	if s.PrivateKey != nil {
		if s.PrivateKey.Algorithm != "" {
			alg = s.PrivateKey.Algorithm
		}
		size = s.PrivateKey.Size
	}
	switch {
	case alg == "ECDSA" && size == 0:
		size = 256
	case alg == "RSA" && size == 0:
		size = 2048
	case alg == "Ed25519":
		size = 0
	}
	switch {
	case alg == "ECDSA" && (size == 256 || size == 384 || size == 521),
		alg == "RSA" && size >= 2048 && size <= 8192, alg == "Ed25519":
		return alg, size, nil
	}
	return "", 0, fmt.Errorf("spec.privateKey: algorithm %s size %d is not served", alg, size)
}

// keyPair is a certificate (and the chain after it) with its key.
type keyPair struct {
	cert  *x509.Certificate
	chain []*x509.Certificate // cert first
	key   crypto.Signer
}

// parseKeyPair parses PEM tls.crt and tls.key, and checks they match.
func parseKeyPair(certPEM, keyPEM []byte) (*keyPair, error) {
	var kp keyPair
	for rest := certPEM; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("tls.crt: %w", err)
		}
		kp.chain = append(kp.chain, c)
	}
	if len(kp.chain) == 0 {
		return nil, errors.New("tls.crt: no certificate")
	}
	kp.cert = kp.chain[0]
	b, _ := pem.Decode(keyPEM)
	if b == nil {
		return nil, errors.New("tls.key: no PEM block")
	}
	key, err := parsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("tls.key: %w", err)
	}
	pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(kp.cert.PublicKey) {
		return nil, errors.New("tls.key does not match tls.crt")
	}
	kp.key = key
	return &kp, nil
}

func parsePrivateKey(b *pem.Block) (crypto.Signer, error) {
	switch b.Type {
	case "RSA PRIVATE KEY":
		return x509.ParsePKCS1PrivateKey(b.Bytes)
	case "EC PRIVATE KEY":
		return x509.ParseECPrivateKey(b.Bytes)
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
		if err != nil {
			return nil, err
		}
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
	}
	return nil, fmt.Errorf("unsupported key type %q", b.Type)
}

// newKey makes a private key and its PEM as the spec asks (PKCS1 by
// default: RSA PRIVATE KEY, EC PRIVATE KEY; PKCS8: PRIVATE KEY).
func newKey(s *CertificateSpec) (crypto.Signer, []byte, error) {
	alg, size, err := s.keyAlgorithm()
	if err != nil {
		return nil, nil, err
	}
	var key crypto.Signer
	switch alg {
	case "RSA":
		key, err = rsa.GenerateKey(rand.Reader, size)
	case "Ed25519":
		_, key, err = ed25519.GenerateKey(rand.Reader)
	default:
		curve := map[int]elliptic.Curve{256: elliptic.P256(), 384: elliptic.P384(), 521: elliptic.P521()}[size]
		key, err = ecdsa.GenerateKey(curve, rand.Reader)
	}
	if err != nil {
		return nil, nil, err
	}
	var block *pem.Block
	pkcs8 := s.PrivateKey != nil && s.PrivateKey.Encoding == "PKCS8"
	switch k := key.(type) {
	case *rsa.PrivateKey:
		if !pkcs8 {
			block = &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}
		}
	case *ecdsa.PrivateKey:
		if !pkcs8 {
			der, err := x509.MarshalECPrivateKey(k)
			if err != nil {
				return nil, nil, err
			}
			block = &pem.Block{Type: "EC PRIVATE KEY", Bytes: der}
		}
	}
	if block == nil {
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return nil, nil, err
		}
		block = &pem.Block{Type: "PRIVATE KEY", Bytes: der}
	}
	return key, pem.EncodeToMemory(block), nil
}

// template is the certificate the spec asks for, valid from now.
func template(s *CertificateSpec, key crypto.Signer, now time.Time) (*x509.Certificate, error) {
	duration, _, err := s.lifetime()
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, err
	}
	t := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: s.CommonName},
		NotBefore: now, NotAfter: now.Add(duration),
		DNSNames: s.DNSNames, EmailAddresses: s.EmailAddresses,
		BasicConstraintsValid: true, IsCA: s.IsCA,
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	if s.Subject != nil {
		t.Subject.Organization, t.Subject.OrganizationalUnit = s.Subject.Organizations, s.Subject.OrganizationalUnits
	}
	if _, ok := key.(*rsa.PrivateKey); ok {
		t.KeyUsage |= x509.KeyUsageKeyEncipherment
	}
	if s.IsCA {
		t.KeyUsage |= x509.KeyUsageCertSign
	}
	for _, u := range s.Usages {
		switch u {
		case "server auth":
			t.ExtKeyUsage = append(t.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
		case "client auth":
			t.ExtKeyUsage = append(t.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
		case "cert sign":
			t.KeyUsage |= x509.KeyUsageCertSign
		case "key encipherment":
			t.KeyUsage |= x509.KeyUsageKeyEncipherment
		}
	}
	for _, ip := range s.IPAddresses {
		p := net.ParseIP(ip)
		if p == nil {
			return nil, fmt.Errorf("spec.ipAddresses: %q is not an IP address", ip)
		}
		t.IPAddresses = append(t.IPAddresses, p)
	}
	for _, u := range s.URIs {
		p, err := url.Parse(u)
		if err != nil {
			return nil, fmt.Errorf("spec.uris: %v", err)
		}
		t.URIs = append(t.URIs, p)
	}
	return t, nil
}

// issued is a signed certificate's Secret data.
type issued struct {
	cert                   *x509.Certificate
	certPEM, keyPEM, caPEM []byte
}

// sign issues the certificate the spec asks for, signed by sg.
func sign(s *CertificateSpec, sg *signer, now time.Time) (*issued, error) {
	key, keyPEM, err := newKey(s)
	if err != nil {
		return nil, err
	}
	t, err := template(s, key, now.Truncate(time.Second))
	if err != nil {
		return nil, err
	}
	parent, signKey := t, key
	if sg.ca != nil {
		parent, signKey = sg.ca.cert, sg.ca.key
	}
	der, err := x509.CreateCertificate(rand.Reader, t, parent, key.Public(), signKey)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	out := &issued{cert: cert, keyPEM: keyPEM}
	out.certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	out.caPEM = out.certPEM
	if sg.ca != nil {
		// tls.crt: the certificate and the CA's chain; ca.crt: its root.
		for _, c := range sg.ca.chain {
			out.certPEM = append(out.certPEM, certPEM(c)...)
		}
		out.caPEM = certPEM(sg.ca.chain[len(sg.ca.chain)-1])
	}
	return out, nil
}

func certPEM(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

// mismatch says why the Secret's key pair is not the certificate the spec
// asks from sg ("" when it is).
func mismatch(s *CertificateSpec, sg *signer, kp *keyPair) string {
	c := kp.cert
	duration, _, _ := s.lifetime()
	alg, size, _ := s.keyAlgorithm()
	var ips, uris []string
	for _, ip := range c.IPAddresses {
		ips = append(ips, ip.String())
	}
	for _, u := range c.URIs {
		uris = append(uris, u.String())
	}
	var wantIPs []string
	for _, ip := range s.IPAddresses {
		if p := net.ParseIP(ip); p != nil {
			wantIPs = append(wantIPs, p.String())
		}
	}
	switch {
	case c.Subject.CommonName != s.CommonName:
		return "the common name differs"
	case !sameSet(c.DNSNames, s.DNSNames), !sameSet(ips, wantIPs), !sameSet(uris, s.URIs), !sameSet(c.EmailAddresses, s.EmailAddresses):
		return "the subject alternative names differ"
	case c.IsCA != s.IsCA:
		return "isCA differs"
	case c.NotAfter.Sub(c.NotBefore) != duration:
		return "the duration differs"
	case keyAlg(kp.key) != fmt.Sprintf("%s/%d", alg, size):
		return "the private key's algorithm or size differs"
	case sg.ca != nil && c.CheckSignatureFrom(sg.ca.cert) != nil:
		return "not signed by the issuer's CA"
	case sg.ca == nil && c.CheckSignature(c.SignatureAlgorithm, c.RawTBSCertificate, c.Signature) != nil:
		return "not self-signed"
	}
	return ""
}

func keyAlg(k crypto.Signer) string {
	switch k := k.(type) {
	case *rsa.PrivateKey:
		return fmt.Sprintf("RSA/%d", k.N.BitLen())
	case *ecdsa.PrivateKey:
		return fmt.Sprintf("ECDSA/%d", k.Curve.Params().BitSize)
	case ed25519.PrivateKey:
		return "Ed25519/0"
	}
	return "unknown"
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// pemEqual says whether two PEM texts hold the same bytes, ignoring space.
func pemEqual(a, b []byte) bool {
	return bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b))
}

// joinNames is a comma-separated annotation value.
func joinNames(names []string) string { return strings.Join(names, ",") }
