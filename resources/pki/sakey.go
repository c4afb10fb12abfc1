package pki

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
)

// ServiceAccountKey is the key pair kube-apiserver signs service-account
// tokens with (sa.key, --service-account-signing-key-file) and that
// kube-apiserver and kube-controller-manager verify them with (sa.pub).
type ServiceAccountKey struct {
	PublicPEM  string // PKIX "PUBLIC KEY"
	PrivatePEM string // PKCS#8 "PRIVATE KEY"; secret
}

// serviceAccountKeyBits is RSA 2048, what kubeadm generates.
const serviceAccountKeyBits = 2048

// NewServiceAccountKey creates the service-account signing key. It is RSA
// 2048 rather than ECDSA: kube-apiserver accepts both, but tokens are read
// by more than Kubernetes (OIDC federation with clouds and vault, older
// client libraries) and RS256 is the one JWT algorithm all of them verify.
// It is made once per cluster, so RSA's slower generation does not matter.
func NewServiceAccountKey() (ServiceAccountKey, error) {
	key, err := rsa.GenerateKey(randReader, serviceAccountKeyBits)
	if err != nil {
		return ServiceAccountKey{}, fmt.Errorf("generate service-account key: %w", err)
	}
	priv, err := encodeKey(key)
	if err != nil {
		return ServiceAccountKey{}, fmt.Errorf("service-account key: %w", err)
	}
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return ServiceAccountKey{}, fmt.Errorf("service-account public key: %w", err)
	}
	pub := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	return ServiceAccountKey{PublicPEM: pub, PrivatePEM: priv}, nil
}
