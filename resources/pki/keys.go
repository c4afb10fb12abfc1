package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"fmt"
	"math/big"
)

// randReader is the entropy source for keys and serials.
var randReader = rand.Reader

func newLeafKey() (crypto.Signer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), randReader)
	if err != nil {
		return nil, fmt.Errorf("generate ECDSA P-256 key: %w", err)
	}
	return key, nil
}

// serialLimit is 2^128: serials are 128 random bits, well inside RFC 5280's
// 20-octet limit and unguessable, so two issuers never collide.
var serialLimit = new(big.Int).Lsh(big.NewInt(1), 128)

func randomSerial() (*big.Int, error) {
	for {
		n, err := rand.Int(randReader, serialLimit)
		if err != nil {
			return nil, fmt.Errorf("random serial: %w", err)
		}
		if n.Sign() > 0 { // RFC 5280: serials are positive
			return n, nil
		}
	}
}

// subjectKeyID is RFC 7093 method 1: the leftmost 160 bits of the SHA-256
// of the subjectPublicKey bit string.
func subjectKeyID(pub crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("encode public key: %w", err)
	}
	var spki struct {
		Algorithm asn1.RawValue
		PublicKey asn1.BitString
	}
	if _, err := asn1.Unmarshal(der, &spki); err != nil {
		return nil, fmt.Errorf("decode public key: %w", err)
	}
	sum := sha256.Sum256(spki.PublicKey.Bytes)
	return sum[:20], nil
}
