package config

import (
	"encoding/base64"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Credentials recognised by their form: a file function that reads one
// marks its value sensitive (func_file.go), an attribute refuses one
// given in clear (decoder.eval), and no message repeats one (echo.go).
// Those are what a GitOps Job mounts (an SSH key, an age identity, a
// ServiceAccount token) and what a kubeconfig holds.
var (
	pemPrivateKey = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----`)
	ageIdentity   = regexp.MustCompile(`AGE-(SECRET-KEY|PLUGIN-[A-Z0-9-]+)-1[0-9A-Z]{30,}`)
	jsonWebToken  = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}`)
)

// pemInBase64 is "-----BEGIN" in Base64, as a kubeconfig's
// client-key-data or filebase64 of a key starts.
const pemInBase64 = "LS0tLS1CRUdJTi"

// openSSHKeyBody is "openssh-key-v1\x00" in Base64: how an OpenSSH
// private key's body starts, copied without its BEGIN line (into a
// host_key, where a public key of the same look belongs).
const openSSHKeyBody = "b3BlbnNzaC1rZXktdjEA"

// secretKind names the credential s holds ("" when none): "a private
// key", "an age identity" or "a token".
func secretKind(s string) string {
	switch {
	case strings.Contains(s, "PRIVATE KEY") && pemPrivateKey.MatchString(s),
		strings.Contains(s, "PuTTY-User-Key-File-"), strings.Contains(s, openSSHKeyBody), base64PrivateKey(s):
		return "a private key"
	case strings.Contains(s, "AGE-") && ageIdentity.MatchString(s):
		return "an age identity"
	case strings.Contains(s, "eyJ") && jsonWebToken.MatchString(s):
		return "a token"
	}
	return ""
}

// base64PrivateKey says whether s holds a PEM private key in Base64.
func base64PrivateKey(s string) bool {
	for {
		i := strings.Index(s, pemInBase64)
		if i < 0 {
			return false
		}
		s = s[i:]
		chunk := s[:min(len(s), 64)]
		chunk = chunk[:len(chunk)/4*4]
		if b, err := base64.StdEncoding.DecodeString(chunk); err == nil && strings.Contains(string(b), "PRIVATE KEY") {
			return true
		}
		s = s[len(pemInBase64):]
	}
}

// secretIn is secretKind for every string of an unmarked value, map keys
// and attribute names included.
func secretIn(v cty.Value) string {
	if !v.IsKnown() || v.IsNull() {
		return ""
	}
	if v.Type() == cty.String {
		return secretKind(v.AsString())
	}
	if !v.CanIterateElements() {
		return ""
	}
	for it := v.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		if k.Type() == cty.String {
			if kind := secretKind(k.AsString()); kind != "" {
				return kind
			}
		}
		if kind := secretIn(ev); kind != "" {
			return kind
		}
	}
	return ""
}

// secretHints say, for the attributes a credential is most likely given
// to by mistake, what belongs there instead.
var secretHints = map[string]string{
	"user":       "user is the login name on the node; its key is a file that private_key_file names",
	"recipients": "this is a private key, and a recipient is a public key (age1… or ssh-…)",
	"address":    "address is the node's IP address or DNS name",
	"name":       "a name is shown in plans, logs and on the nodes",
	"host_key":   "host_key is the host's public key (as ssh-keyscan prints it, or its /etc/ssh/ssh_host_ed25519_key.pub), never a private key",
}

// refuseSecret reports a credential given in clear to an attribute that
// is not a carrier, at its line, without the value.
func (d *decoder) refuseSecret(a *hcl.Attribute, kind string) {
	hint, ok := secretHints[a.Name]
	if !ok {
		hint = "give a credential as a file eggo reads (private_key_file, password_env), or through a sensitive variable to an attribute that may hold one"
	}
	d.errorf(a.Expr.Range(), "Credential not allowed here",
		"The value of %q holds %s, which eggo would show in plans and logs and store in the state unsealed; it is not shown here: %s.",
		a.Name, kind, hint)
}
