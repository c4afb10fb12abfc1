package state

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"

	"filippo.io/age"
	"golang.org/x/crypto/chacha20poly1305"
)

// The data key (format 4). A state's secrets are sealed with one random
// key, and only that key is encrypted to the recipients, as an age file
// under "data_key". Each value is XChaCha20-Poly1305 under the data key
// with a random nonce, its place ("resource/ADDRESS/ATTR", "output/NAME")
// bound as additional data, so a value moved to another place in the file
// does not open.
//
// Before, each value was an age file of its own: ~330 bytes of header and
// one X25519 key agreement per value and recipient, on every read of a
// thousand-node state. Now the header is paid once per state, and a read
// makes one key agreement. A value sealed the old way (an age file) still
// opens; it is sealed again under the data key on the next write that
// has an identity to open it.

// dataKeySize is the size of a data key: XChaCha20-Poly1305's.
const dataKeySize = chacha20poly1305.KeySize

// dataKey is a data key as this process knows it: the envelope written in
// the file, and the key itself when it was made here or opened.
type dataKey struct {
	envelope string   // base64 of the age file holding the key
	names    []string // the recipients it was made for (sorted)
	key      []byte   // nil: not opened (why says why)
	why      error
}

// errDataKeyUnopened: a new value cannot be sealed under a data key that
// did not open.
var errDataKeyUnopened = errors.New("the state's data key did not open, so a new secret cannot be sealed under it")

// SealTo is plaintext as an age file that any of recipients opens: the
// data key's envelope, and a sealed plan (engine).
func SealTo(recipients []age.Recipient, plaintext []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := age.Encrypt(&buf, recipients...)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(plaintext); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// newDataKey makes a random data key and seals it to recipients.
func newDataKey(recipients []age.Recipient, names []string) (*dataKey, error) {
	key := make([]byte, dataKeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	sealed, err := SealTo(recipients, key)
	if err != nil {
		return nil, fmt.Errorf("encrypting the data key: %w", err)
	}
	return &dataKey{envelope: base64.StdEncoding.EncodeToString(sealed), names: names, key: key}, nil
}

// openDataKey opens an envelope with identities.
func openDataKey(envelope string, identities []age.Identity) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(envelope)
	if err != nil {
		return nil, fmt.Errorf("corrupt envelope: data_key is not base64: %v", err)
	}
	r, err := age.Decrypt(bytes.NewReader(raw), identities...)
	if err != nil {
		return nil, openFailure("the data key", err, identities)
	}
	key, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("MAC failure: the data key's payload does not verify (altered): %v", err)
	}
	if len(key) != dataKeySize {
		return nil, fmt.Errorf("corrupt envelope: data_key holds %d bytes, not a key of %d", len(key), dataKeySize)
	}
	return key, nil
}

// sealUnder encrypts plaintext for place under key: base64 of the nonce
// followed by the ciphertext and its tag.
func sealUnder(key []byte, place string, plaintext []byte) (string, error) {
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return "", err
	}
	out := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plaintext)+aead.Overhead())
	if _, err := rand.Read(out); err != nil {
		return "", err
	}
	out = aead.Seal(out, out, plaintext, []byte(place))
	return base64.StdEncoding.EncodeToString(out), nil
}

// openUnder decrypts raw (sealUnder's bytes, decoded) for place.
func openUnder(key []byte, place string, raw []byte) ([]byte, error) {
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, err
	}
	if len(raw) < aead.NonceSize()+aead.Overhead() {
		return nil, errors.New("corrupt value: too short to be a sealed value")
	}
	plaintext, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], []byte(place))
	if err != nil {
		// Tampered with, moved from another place, or another
		// state's key: the same answer, as the AEAD gives.
		return nil, errors.New("MAC failure: it does not verify under the state's data key (altered, moved from another place, or sealed under another key)")
	}
	return plaintext, nil
}

// ageHeader begins every age file: a value sealed before format 4.
const ageHeader = "age-encryption.org/v1\n"

// isAgeFile reports whether raw is an age file (a value sealed on its own,
// before format 4) rather than a value under the data key. A value under
// the data key begins with a random nonce: that it spells this header is a
// chance of one in 2^176.
func isAgeFile(raw []byte) bool { return bytes.HasPrefix(raw, []byte(ageHeader)) }
