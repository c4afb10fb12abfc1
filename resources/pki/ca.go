package pki

import (
	"crypto"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"strings"
	"time"
)

// clockSkew backdates NotBefore so a certificate issued on one machine is
// already valid on a host whose clock is a little behind.
const clockSkew = 5 * time.Minute

// NewCA creates a self-signed certificate authority valid for validity from
// now. MaxPathLen is 0: eggo's PKI is one level deep (CA → leaf), and a CA
// that cannot sign intermediates limits what a stolen key can mint.
func NewCA(commonName string, validity time.Duration, now time.Time) (KeyPair, error) {
	if strings.TrimSpace(commonName) == "" {
		return KeyPair{}, errors.New("new CA: common name is empty")
	}
	if validity <= 0 {
		return KeyPair{}, fmt.Errorf("new CA %q: validity %s is not positive", commonName, validity)
	}
	key, err := newLeafKey()
	if err != nil {
		return KeyPair{}, fmt.Errorf("new CA %q: %w", commonName, err)
	}
	serial, err := randomSerial()
	if err != nil {
		return KeyPair{}, fmt.Errorf("new CA %q: %w", commonName, err)
	}
	ski, err := subjectKeyID(key.Public())
	if err != nil {
		return KeyPair{}, fmt.Errorf("new CA %q: %w", commonName, err)
	}
	notBefore, notAfter := window(now, validity)
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLen:            0,
		MaxPathLenZero:        true,
		SubjectKeyId:          ski,
	}
	der, err := x509.CreateCertificate(randReader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("new CA %q: sign: %w", commonName, err)
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("new CA %q: %w", commonName, err)
	}
	return KeyPair{CertPEM: encodeCert(der), KeyPEM: keyPEM}, nil
}

// parseCA reads a CA key pair and checks it can sign.
func parseCA(ca KeyPair) (*x509.Certificate, crypto.Signer, error) {
	cert, key, err := ca.Parse()
	if err != nil {
		return nil, nil, fmt.Errorf("CA: %w", err)
	}
	if !cert.IsCA || cert.KeyUsage&x509.KeyUsageCertSign == 0 {
		return nil, nil, fmt.Errorf("certificate %q is not a CA", cert.Subject.CommonName)
	}
	return cert, key, nil
}

// window is the validity period of a certificate issued at now.
func window(now time.Time, validity time.Duration) (time.Time, time.Time) {
	now = now.UTC().Truncate(time.Second) // X.509 times have whole seconds
	return now.Add(-clockSkew), now.Add(validity)
}
