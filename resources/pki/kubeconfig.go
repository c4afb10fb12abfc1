package pki

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Kubeconfig returns a kubeconfig with one cluster, one user and one
// context ("user@cluster", as kubeadm names it) that is also the current
// context. Certificates and key are embedded as base64 data so the file
// stands alone. The same inputs always give the same bytes, so eggo can
// compare a host's file with the one it would write.
//
// The result contains clientKeyPEM: it is a secret.
func Kubeconfig(cluster, server, caPEM, user, clientCertPEM, clientKeyPEM string) string {
	context := user + "@" + cluster
	var b strings.Builder
	line := func(indent int, key, value string) {
		b.WriteString(strings.Repeat(" ", indent))
		b.WriteString(key)
		b.WriteString(":")
		if value != "" {
			b.WriteString(" ")
			b.WriteString(value)
		}
		b.WriteString("\n")
	}
	line(0, "apiVersion", "v1")
	line(0, "kind", "Config")
	line(0, "clusters", "")
	line(0, "- cluster", "")
	line(4, "certificate-authority-data", b64(caPEM))
	line(4, "server", yamlString(server))
	line(2, "name", yamlString(cluster))
	line(0, "contexts", "")
	line(0, "- context", "")
	line(4, "cluster", yamlString(cluster))
	line(4, "user", yamlString(user))
	line(2, "name", yamlString(context))
	line(0, "current-context", yamlString(context))
	line(0, "preferences", "{}")
	line(0, "users", "")
	line(0, "- name", yamlString(user))
	line(2, "user", "")
	line(4, "client-certificate-data", b64(clientCertPEM))
	line(4, "client-key-data", b64(clientKeyPEM))
	return b.String()
}

func b64(s string) string {
	return base64.StdEncoding.EncodeToString([]byte(s))
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
