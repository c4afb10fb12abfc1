package pki

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/eggo-project/eggo/internal/recent"
)

// Kubeconfig returns a kubeconfig with one cluster, one user and one
// context ("user@cluster", as kubeadm names it) that is also the current
// context. Certificates and key are embedded as base64 data so the file
// stands alone. The same inputs always give the same bytes, so eggo can
// compare a host's file with the one it would write.
//
// The result contains clientKeyPEM: it is a secret. One rendered lately
// is not rendered again (a plan renders each service's kubeconfigs twice,
// and kube-proxy's and flanneld's are alike on every worker).
func Kubeconfig(cluster, server, caPEM, user, clientCertPEM, clientKeyPEM string) string {
	in := kubeconfigInputs{cluster, server, caPEM, user, clientCertPEM, clientKeyPEM}
	return recentKubeconfigs.Get(in, func() string { return renderKubeconfig(in) })
}

// kubeconfigInputs are Kubeconfig's arguments, whose rendering
// recentKubeconfigs remembers (at most 64: a few kilobytes each, with a
// private key).
type kubeconfigInputs struct{ cluster, server, caPEM, user, clientCertPEM, clientKeyPEM string }

var recentKubeconfigs = recent.Memo[kubeconfigInputs, string]{Size: 64}

func renderKubeconfig(in kubeconfigInputs) string {
	cluster, server, caPEM, user, clientCertPEM, clientKeyPEM := in.cluster, in.server, in.caPEM, in.user, in.clientCertPEM, in.clientKeyPEM
	context := user + "@" + cluster
	// One buffer of the right size, the certificates encoded straight into
	// it: a plan renders every node's kubeconfigs to compare them.
	var b strings.Builder
	b.Grow(400 + 4*len(context) + len(server) + base64.StdEncoding.EncodedLen(len(caPEM)+len(clientCertPEM)+len(clientKeyPEM)+6))
	line := func(indent int, key, value string, encode bool) {
		b.WriteString(kubeconfigIndent[:indent])
		b.WriteString(key)
		b.WriteString(":")
		if value != "" {
			b.WriteString(" ")
			if encode {
				writeBase64(&b, value)
			} else {
				b.WriteString(value)
			}
		}
		b.WriteString("\n")
	}
	line(0, "apiVersion", "v1", false)
	line(0, "kind", "Config", false)
	line(0, "clusters", "", false)
	line(0, "- cluster", "", false)
	line(4, "certificate-authority-data", caPEM, true)
	line(4, "server", yamlString(server), false)
	line(2, "name", yamlString(cluster), false)
	line(0, "contexts", "", false)
	line(0, "- context", "", false)
	line(4, "cluster", yamlString(cluster), false)
	line(4, "user", yamlString(user), false)
	line(2, "name", yamlString(context), false)
	line(0, "current-context", yamlString(context), false)
	line(0, "preferences", "{}", false)
	line(0, "users", "", false)
	line(0, "- name", yamlString(user), false)
	line(2, "user", "", false)
	line(4, "client-certificate-data", clientCertPEM, true)
	line(4, "client-key-data", clientKeyPEM, true)
	return b.String()
}

const kubeconfigIndent = "    "

// writeBase64 writes s in standard base64 to b, a piece at a time through
// small buffers (whole pieces of 3 bytes: padding only at the end).
func writeBase64(b *strings.Builder, s string) {
	var in [3 * 256]byte
	var out [4 * 256]byte
	for len(s) > 0 {
		n := copy(in[:], s)
		s = s[n:]
		base64.StdEncoding.Encode(out[:], in[:n])
		b.Write(out[:base64.StdEncoding.EncodedLen(n)])
	}
}

// yamlString leaves plain names (letters, digits and -._:/@) bare, as
// kubeadm writes them, and double-quotes anything else. A JSON string is a
// valid YAML double-quoted scalar, so quoting cannot inject structure.
func yamlString(s string) string {
	if isPlainYAML(s) {
		return s
	}
	q, _ := json.Marshal(s) // a string always marshals
	return string(q)
}

// isPlainYAML is deliberately narrow: a value YAML would read as another
// type (true, null, 1.5, 0x1F) or that starts with an indicator is quoted.
func isPlainYAML(s string) bool {
	if s == "" {
		return false
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~":
		return false
	}
	if c := s[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return false // numbers, "-x", ":x", "@x", "/x" …
	}
	for i, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.ContainsRune("-._/@", c) ||
			c == ':' && i+1 < len(s) && s[i+1] != ' ' // ": " would start a mapping
		if !ok {
			return false
		}
	}
	return true
}
