// Package pkitest makes the certificates the test harnesses need (etcd's
// and the kube-apiserver's): a CA, leaf certificates it signs, and key
// pairs, written as PEM files into a test's directory. Keys are ECDSA
// P-256: quick to make, and every server the harnesses start takes them.
package pkitest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// validity is long enough for any test run, short enough that a leaked
// file is useless soon.
const validity = 24 * time.Hour

// Authority is a CA that signs a test's certificates.
type Authority struct {
	Cert     *x509.Certificate
	Key      *ecdsa.PrivateKey
	CertFile string // DIR/NAME.crt
}

// NewAuthority creates a CA named name and writes its certificate to
// dir/name.crt.
func NewAuthority(dir, name string) (*Authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	certFile := filepath.Join(dir, name+".crt")
	if err := WritePEM(certFile, "CERTIFICATE", der); err != nil {
		return nil, err
	}
	return &Authority{Cert: cert, Key: key, CertFile: certFile}, nil
}

// Leaf describes a certificate to issue.
type Leaf struct {
	Usage        x509.ExtKeyUsage // server or client authentication
	IPs          []net.IP
	DNSNames     []string
	Organization []string // a Kubernetes client's groups
}

// Issue signs a certificate for name (its common name) and writes it and
// its key to dir/name.crt and dir/name.key.
func (a *Authority) Issue(dir, name string, leaf Leaf) (certFile, keyFile string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: name, Organization: leaf.Organization},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{leaf.Usage},
		IPAddresses:  leaf.IPs,
		DNSNames:     leaf.DNSNames,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.Cert, &key.PublicKey, a.Key)
	if err != nil {
		return "", "", err
	}
	certFile = filepath.Join(dir, name+".crt")
	if err := WritePEM(certFile, "CERTIFICATE", der); err != nil {
		return "", "", err
	}
	keyFile, err = writeKey(dir, name, key)
	return certFile, keyFile, err
}

// KeyPair writes a fresh key to dir/name.key and its public half to
// dir/name.pub (a service-account signing key and the key that verifies
// its tokens).
func KeyPair(dir, name string) (keyFile, pubFile string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	if keyFile, err = writeKey(dir, name, key); err != nil {
		return "", "", err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", "", err
	}
	pubFile = filepath.Join(dir, name+".pub")
	return keyFile, pubFile, WritePEM(pubFile, "PUBLIC KEY", pubDER)
}

func writeKey(dir, name string, key *ecdsa.PrivateKey) (string, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", err
	}
	keyFile := filepath.Join(dir, name+".key")
	return keyFile, WritePEM(keyFile, "PRIVATE KEY", der)
}

// WritePEM writes one PEM block, readable by its owner only.
func WritePEM(path, blockType string, der []byte) error {
	data := pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return n
}
