package state

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"filippo.io/age"
	"filippo.io/age/agessh"
	"golang.org/x/crypto/ssh"
)

// Keyring seals the state's secrets to recipients and opens them with the
// operator's identities. Recipients are public keys (age X25519 or SSH);
// identities are private keys, held only in memory.
//
// A Keyring remembers each ciphertext it made or opened, so a value that
// did not change is written with the same ciphertext: age encrypts under a
// fresh random key every time, and re-encrypting on every write would turn
// each write into a diff of every secret (and cost a key agreement per
// secret and recipient on every one of an apply's many writes).
type Keyring struct {
	recipients []age.Recipient
	names      []string // recipients as written in the state, sorted
	identities []age.Identity

	cache *sealCache
}

// sealCache maps sealKey(...) to the base64 ciphertext made or read for
// it, and holds the data keys this process opened or made (datakey.go).
// A keyring made from another (writeKeyring) shares it.
type sealCache struct {
	mu      sync.Mutex
	m       map[[32]byte]string
	opened  map[string][]byte // a file's data_key envelope → the key
	current *dataKey          // the data key made here, for its recipients
	// held: a file's data_key envelope → why it is not known to hold the
	// file's secrets ("" when it is), as its values opened (trust.go).
	held map[string]string
}

func newSealCache() *sealCache {
	return &sealCache{m: map[[32]byte]string{}, opened: map[string][]byte{}, held: map[string]string{}}
}

func (c *sealCache) get(key [32]byte) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, ok
}

func (c *sealCache) put(key [32]byte, v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = v
}

// NewKeyring returns a keyring sealing to recipients (age1… or ssh-…
// public keys; none means secrets are written as they are) and opening
// with identities.
func NewKeyring(recipients []string, identities []age.Identity) (*Keyring, error) {
	k := &Keyring{identities: identities, cache: newSealCache()}
	seen := map[string]bool{}
	for i, s := range recipients {
		name := normalizeRecipient(s)
		if seen[name] {
			continue
		}
		seen[name] = true
		r, err := ParseRecipient(name)
		if err != nil {
			return nil, fmt.Errorf("recipient #%d (%s): %w", i+1, shortKey(name), err)
		}
		k.recipients = append(k.recipients, r)
		k.names = append(k.names, name)
	}
	slices.Sort(k.names)
	return k, nil
}

// ParseRecipient reads one recipient: an age X25519 public key (age1…),
// a post-quantum one (age1pq1…) or an SSH public key (ssh-ed25519 or
// ssh-rsa, as in authorized_keys).
func ParseRecipient(s string) (age.Recipient, error) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "age1pq1"):
		return age.ParseHybridRecipient(s)
	case strings.HasPrefix(s, "age1"):
		return age.ParseX25519Recipient(s)
	case strings.HasPrefix(s, "ssh-"):
		return agessh.ParseRecipient(s)
	case strings.Contains(s, "PRIVATE KEY") || strings.HasPrefix(s, "AGE-SECRET-KEY"):
		// Never echo it: it is a private key given by mistake.
		return nil, errors.New("this is a private key; a recipient is a public key (age1… or ssh-…)")
	}
	return nil, errors.New("not an age (age1…) or SSH (ssh-ed25519 …, ssh-rsa …) public key")
}

// normalizeRecipient drops an SSH key's comment: the same key with another
// comment is the same recipient.
func normalizeRecipient(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "ssh-") {
		if f := strings.Fields(s); len(f) >= 2 {
			return f[0] + " " + f[1]
		}
	}
	return s
}

// shortKey shortens a public key for messages.
func shortKey(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// ReadIdentities reads the identities in an age identity file (lines of
// AGE-SECRET-KEY-1…) or an unencrypted SSH private key (ed25519 or RSA).
// Errors name the file and never quote its content.
func ReadIdentities(path string) ([]age.Identity, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("identity %s: %w", path, err)
	}
	if bytes.Contains(data, []byte("-----BEGIN")) {
		id, err := agessh.ParseIdentity(data)
		if err != nil {
			var missing *ssh.PassphraseMissingError
			if errors.As(err, &missing) {
				return nil, fmt.Errorf("identity %s: the SSH private key is protected by a passphrase; eggo needs an unencrypted key or an age identity file (age-keygen)", path)
			}
			return nil, fmt.Errorf("identity %s: not a usable SSH private key (ed25519 or RSA): %v", path, err)
		}
		return []age.Identity{id}, nil
	}
	ids, err := age.ParseIdentities(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("identity %s: not an age identity file (AGE-SECRET-KEY-1… lines) nor an SSH private key: %v", path, err)
	}
	return ids, nil
}

// Recipients are the keyring's recipients as the state records them.
func (k *Keyring) Recipients() []string {
	if k == nil {
		return nil
	}
	return k.names
}

// CanOpen reports whether the keyring holds any identity.
func (k *Keyring) CanOpen() bool { return k != nil && len(k.identities) > 0 }

// seals reports whether secrets are encrypted on write.
func (k *Keyring) seals() bool { return k != nil && len(k.recipients) > 0 }

// sealKey identifies a value sealed for one place under one data key
// (its envelope, which changes with the recipients). It includes where the
// value lives, so two equal secrets in two places get different
// ciphertexts and the file does not reveal that they match.
func sealKey(place string, plaintext []byte, envelope string) [32]byte {
	h := sha256.New()
	io.WriteString(h, place)
	h.Write([]byte{0})
	h.Write(plaintext)
	h.Write([]byte{0})
	io.WriteString(h, envelope)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// seal encrypts v (any JSON value) for place under dk.
func (k *Keyring) seal(dk *dataKey, place string, v any) (string, error) {
	plaintext, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	key := sealKey(place, plaintext, dk.envelope)
	if cached, ok := k.cache.get(key); ok {
		return cached, nil
	}
	if dk.key == nil {
		return "", fmt.Errorf("%w (%v); give the identity of a recipient with -identity=FILE or EGGO_IDENTITY=FILE", errDataKeyUnopened, dk.why)
	}
	out, err := sealUnder(dk.key, place, plaintext)
	if err != nil {
		return "", fmt.Errorf("encrypting: %w", err)
	}
	k.cache.put(key, out)
	return out, nil
}

// errNoIdentity: the keyring holds no identity to try.
var errNoIdentity = errors.New("no identity given")

// fileDataKey is the data key of a file's envelope (nil for none), opened
// with k's identities if they can: once per process, however many times
// the state is read. An envelope no identity opens comes back with its
// key nil and the reason (also in its why).
func (k *Keyring) fileDataKey(envelope string) (*dataKey, error) {
	if envelope == "" {
		return nil, nil
	}
	dk := &dataKey{envelope: envelope}
	if !k.CanOpen() {
		dk.why = errNoIdentity
		return dk, errNoIdentity
	}
	k.cache.mu.Lock()
	key, ok := k.cache.opened[envelope]
	k.cache.mu.Unlock()
	if !ok {
		var err error
		if key, err = openDataKey(envelope, k.identities); err != nil {
			dk.why = err
			return dk, err
		}
		k.cache.mu.Lock()
		k.cache.opened[envelope] = key
		k.cache.mu.Unlock()
	}
	dk.key = key
	return dk, nil
}

// writeDataKey is the data key a write seals under: the file's own
// (envelope) while the recipients stay and the key is trusted (trust.go),
// so unchanged values keep their ciphertext; otherwise one made for the
// keyring's recipients, once per process. The file's key unopened comes
// back with its key nil: the values it holds are written back as they
// are, and a new one cannot be sealed.
func (k *Keyring) writeDataKey(envelope string, recipientsChanged bool) (*dataKey, error) {
	if !recipientsChanged && envelope != "" {
		dk, _ := k.fileDataKey(envelope)
		if dk.key == nil || k.distrust(envelope, k.names) == "" {
			return dk, nil
		}
	}
	k.cache.mu.Lock()
	defer k.cache.mu.Unlock()
	if cur := k.cache.current; cur != nil && slices.Equal(cur.names, k.names) {
		return cur, nil
	}
	dk, err := newDataKey(k.recipients, k.names)
	if err != nil {
		return nil, err
	}
	k.cache.current = dk
	k.cache.opened[dk.envelope] = dk.key
	return dk, nil
}

// open decrypts a sealed value of place: under dk (the file's data key),
// or, sealed before format 4, as an age file of its own (legacy). A value
// under the data key is remembered, so an unchanged value is written back
// as it was; one sealed the old way is not, so the next write seals it
// under the data key. Its error says why it did not open (trust.go).
func (k *Keyring) open(place, sealed string, dk *dataKey) (v any, legacy bool, err error) {
	if !k.CanOpen() {
		return nil, false, errNoIdentity
	}
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil {
		return nil, false, fmt.Errorf("corrupt value: not base64: %v", err)
	}
	var plaintext []byte
	legacy = isAgeFile(raw)
	switch {
	case legacy:
		r, err := age.Decrypt(bytes.NewReader(raw), k.identities...)
		if err != nil {
			return nil, true, openFailure("the value", err, k.identities)
		}
		if plaintext, err = io.ReadAll(r); err != nil {
			return nil, true, fmt.Errorf("MAC failure: the value's payload does not verify (altered): %v", err)
		}
	case dk == nil:
		return nil, false, errors.New("corrupt value: not an age file, and the state has no data_key")
	case dk.key == nil:
		return nil, false, dk.why
	default:
		if plaintext, err = openUnder(dk.key, place, raw); err != nil {
			return nil, false, err
		}
	}
	if err := json.Unmarshal(plaintext, &v); err != nil {
		return nil, legacy, fmt.Errorf("corrupt value: decrypted, it is not JSON: %v", err)
	}
	if !legacy {
		k.cache.put(sealKey(place, plaintext, dk.envelope), sealed)
	}
	return v, legacy, nil
}
