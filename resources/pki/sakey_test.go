package pki

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"strings"
	"testing"
)

func TestServiceAccountKey(t *testing.T) {
	k, err := NewServiceAccountKey()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(k.PublicPEM, "-----BEGIN PUBLIC KEY-----") || !strings.HasPrefix(k.PrivatePEM, "-----BEGIN PRIVATE KEY-----") {
		t.Fatalf("unexpected PEM types")
	}
	if err := checkSAKey(k); err != nil {
		t.Fatal(err)
	}
	priv, _ := ParsePrivateKey(k.PrivatePEM)
	rsaKey, ok := priv.(*rsa.PrivateKey)
	if !ok || rsaKey.N.BitLen() != 2048 {
		t.Fatalf("key %T, want RSA 2048", priv)
	}
	// A token signed with sa.key verifies with sa.pub (RS256).
	digest := sha256.Sum256([]byte("header.payload"))
	sig, err := priv.Sign(randReader, digest[:], crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := parsePublicKey(k.PublicPEM)
	if err != nil {
		t.Fatal(err)
	}
	if err := rsa.VerifyPKCS1v15(pub.(*rsa.PublicKey), crypto.SHA256, digest[:], sig); err != nil {
		t.Errorf("signature does not verify with the public half: %v", err)
	}

	other, err := NewServiceAccountKey()
	if err != nil {
		t.Fatal(err)
	}
	mixed := ServiceAccountKey{PublicPEM: other.PublicPEM, PrivatePEM: k.PrivatePEM}
	if err := checkSAKey(mixed); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("mismatched halves: %v", err)
	}
	if _, err := parsePublicKey("nope"); err == nil {
		t.Error("garbage public key accepted")
	}
}
