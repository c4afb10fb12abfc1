package config

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	gossh "golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/resources"
)

// hostKeyTypes are the host key types a host_key may name: those eggo asks
// a host for (providers/ssh), DSA left out as OpenSSH leaves it out.
var hostKeyTypes = []string{
	gossh.KeyAlgoED25519,
	gossh.KeyAlgoECDSA256, gossh.KeyAlgoECDSA384, gossh.KeyAlgoECDSA521,
	gossh.KeyAlgoRSA,
}

// keyTypeName is what a key type looks like; only such a word is quoted
// back, so a message never repeats key material written where the type
// belongs.
var keyTypeName = regexp.MustCompile(`^[a-z][a-z0-9@.]*-[a-z0-9@.-]*$`)

// hostKeyPtr reads a host_key: the host's public key in authorized_keys
// form, as ssh-keyscan prints it or /etc/ssh/ssh_host_*_key.pub holds it,
// a comment allowed. It comes back as the state pins a key (no comment).
// A private key never gets here: the decoder refuses it, unshown
// (credentials.go).
func hostKeyPtr(dec *decoder, attrs hcl.Attributes, name string) *string {
	p := dec.strPtr(attrs, name)
	if p == nil {
		return nil
	}
	key, why := parseHostKey(*p)
	if why != "" {
		dec.errorf(attrs[name].Expr.Range(), "Invalid "+name,
			"%s must be the host's public key, on one line as ssh-keyscan prints it or /etc/ssh/ssh_host_ed25519_key.pub "+
				"holds it (\"ssh-ed25519 AAAA…\", a comment allowed): %s.", name, why)
		return nil
	}
	s := resources.FormatHostKey(key)
	return &s
}

// parseHostKey parses s as one public host key, or says what is wrong
// with it. The reason never repeats s beyond a word shaped like a key type:
// what was written may be a private key in a form secretKind does not know.
func parseHostKey(s string) (gossh.PublicKey, string) {
	if strings.Contains(strings.TrimSpace(s), "\n") {
		return nil, "it has several lines; give exactly one key"
	}
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, "it is empty; leave host_key out to verify the host by known_hosts"
	}
	typ := fields[0]
	if len(typ) > 64 || !keyTypeName.MatchString(typ) {
		return nil, "it is not a public key: it does not start with a key type such as ssh-ed25519"
	}
	if strings.Contains(typ, "-cert-") {
		return nil, fmt.Sprintf("%q is a certificate type; give the host's plain key (a certificate expires, and a pinned one would lock the host out)", typ)
	}
	if !slices.Contains(hostKeyTypes, typ) {
		return nil, fmt.Sprintf("%q is not a host key type eggo accepts; the types are %s", typ, strings.Join(hostKeyTypes, ", "))
	}
	if len(fields) < 2 {
		return nil, fmt.Sprintf("it has the key type %s but no key data after it", typ)
	}
	data, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil {
		return nil, fmt.Sprintf("it is not a public key: the key data after %s is not Base64", typ)
	}
	key, err := gossh.ParsePublicKey(data)
	if err != nil {
		return nil, fmt.Sprintf("it is not a public key: the key data after %s does not decode to a key", typ)
	}
	if key.Type() != typ {
		return nil, fmt.Sprintf("its key data is a %s key, not %s as its type says", key.Type(), typ)
	}
	return key, ""
}
