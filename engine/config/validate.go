package config

import (
	"net/netip"
	"strings"
)

// isDNSLabel reports whether s is an RFC 1123 label in lowercase, the form
// Kubernetes requires of node names.
func isDNSLabel(s string) bool {
	if len(s) == 0 || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// isHostname reports whether s is a DNS name (letters of either case).
func isHostname(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		if !isDNSLabel(strings.ToLower(label)) {
			return false
		}
	}
	return true
}

// isHost reports whether s is an IP address or a DNS name.
func isHost(s string) bool {
	if _, err := netip.ParseAddr(s); err == nil {
		return true
	}
	// A name made only of digits and dots is a mistyped IPv4 address, not a host name.
	if strings.Trim(s, "0123456789.") == "" {
		return false
	}
	return isHostname(s)
}

// notAHost says why s, when it is an IP address, names no single host
// eggo could connect to; "" when it can be one (or s is a DNS name).
func notAHost(s string) string {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return ""
	}
	a = a.Unmap()
	switch {
	case a.IsUnspecified():
		return "the unspecified address, which means any address of this machine, not a host"
	case a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "the broadcast address, not a host"
	case a.IsMulticast():
		return "a multicast address (224.0.0.0/4 or ff00::/8), a group, not a host"
	}
	return ""
}

// isEnvName reports whether s can name an environment variable.
func isEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
