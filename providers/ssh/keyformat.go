package ssh

import (
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"
)

// FormatHostKey writes k as an authorized_keys line without comment or
// newline ("ssh-ed25519 AAAA…"): the form pins take in the state file.
func FormatHostKey(k ssh.PublicKey) string {
	return strings.TrimSuffix(string(ssh.MarshalAuthorizedKey(k)), "\n")
}

// ParseHostKey reads a key written by FormatHostKey (a trailing comment is
// allowed; options and further lines are not).
func ParseHostKey(s string) (ssh.PublicKey, error) {
	key, _, options, rest, err := ssh.ParseAuthorizedKey([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("host key %q: %w", abbreviate(s), err)
	}
	if len(options) > 0 || strings.TrimSpace(string(rest)) != "" {
		return nil, fmt.Errorf("host key %q: want one key as \"TYPE BASE64\", without options or further lines", abbreviate(s))
	}
	return key, nil
}

// Fingerprint names k the way OpenSSH prints it: type and SHA256
// fingerprint ("ssh-ed25519 SHA256:…").
func Fingerprint(k ssh.PublicKey) string {
	return k.Type() + " " + ssh.FingerprintSHA256(k)
}

// abbreviate keeps error messages about a malformed key short.
func abbreviate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
