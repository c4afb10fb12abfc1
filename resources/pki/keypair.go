package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// KeyPair is a certificate and its private key, both PEM encoded, the form
// eggo keeps in state and writes to hosts. KeyPEM is empty when only the
// certificate is known (for example a CA whose key stays elsewhere).
type KeyPair struct {
	CertPEM string
	KeyPEM  string // secret: never log or print it
}

// Parse decodes both halves and checks that the key belongs to the
// certificate, so a mismatched pair fails here rather than on a host.
func (kp KeyPair) Parse() (*x509.Certificate, crypto.Signer, error) {
	cert, err := ParseCertificate(kp.CertPEM)
	if err != nil {
		return nil, nil, err
	}
	key, err := ParsePrivateKey(kp.KeyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("key of certificate %q: %w", cert.Subject.CommonName, err)
	}
	if !publicKeysEqual(cert.PublicKey, key.Public()) {
		return nil, nil, fmt.Errorf("private key does not match certificate %q", cert.Subject.CommonName)
	}
	return cert, key, nil
}

// ParseCertificate decodes the first CERTIFICATE block of certPEM; any other
// blocks (a chain, a key) are ignored.
func ParseCertificate(certPEM string) (*x509.Certificate, error) {
	if certPEM == "" {
		return nil, errors.New("certificate PEM is empty")
	}
	rest := []byte(certPEM)
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, errors.New("no CERTIFICATE block found in PEM")
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse certificate: %w", err)
		}
		return cert, nil
	}
}

// ParsePrivateKey decodes a PKCS#8, SEC 1 (EC) or PKCS#1 (RSA) private key.
// Errors never quote the input: it is a secret.
func ParsePrivateKey(keyPEM string) (crypto.Signer, error) {
	if keyPEM == "" {
		return nil, errors.New("private key PEM is empty")
	}
	block, _ := pem.Decode([]byte(keyPEM))
	if block == nil {
		return nil, errors.New("private key is not PEM encoded")
	}
	var (
		key any
		err error
	)
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("PEM block %q is not a private key", block.Type)
	}
	if err != nil {
		// The parser's message describes structure, not key material.
		return nil, fmt.Errorf("parse %s: %w", block.Type, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("private key of type %T cannot sign", key)
	}
	return signer, nil
}

func encodeCert(der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// encodeKey writes PKCS#8, which Go, OpenSSL, etcd and client-go all read
// whatever the key algorithm.
func encodeKey(key crypto.Signer) (string, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", fmt.Errorf("encode private key: %w", err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), nil
}

func publicKeysEqual(a, b crypto.PublicKey) bool {
	type equaler interface{ Equal(crypto.PublicKey) bool }
	switch k := a.(type) {
	case *ecdsa.PublicKey, *rsa.PublicKey, ed25519.PublicKey:
		return k.(equaler).Equal(b)
	}
	return false
}
