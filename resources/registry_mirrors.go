package resources

import (
	"fmt"
	"maps"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Registry mirrors (Runtime.RegistryMirrors) reach containerd as files, one
// directory per registry host: what may be a key and a mirror is checked
// here, once for the configuration (engine/config, at the line) and again
// for whatever builds a Cluster otherwise (kube, before it writes a file).

// DefaultRegistry is the registry_mirrors key of every registry that has no
// entry of its own: containerd's _default host directory.
const DefaultRegistry = "_default"

// MaxRegistryMirrors is the most mirrors one registry may have, and
// MaxMirroredRegistries the most registries: containerd tries a registry's
// mirrors one after the other, and a longer list is a mistake.
const (
	MaxRegistryMirrors    = 16
	MaxMirroredRegistries = 64
)

// RegistryHostError says why host cannot be a registry_mirrors key, "" when
// it can: DefaultRegistry, or what an image name starts with — a DNS name
// or an IPv4 address, with an optional port ("registry.k8s.io",
// "10.0.0.5:5000"). It names the directory containerd looks the
// registry's mirrors up in, so nothing else is let through.
func RegistryHostError(host string) string {
	if host == DefaultRegistry {
		return ""
	}
	if strings.Count(host, ":") > 1 || strings.HasPrefix(host, "[") {
		return "is an IPv6 address; give the registry's DNS name"
	}
	name, port, hasPort := strings.Cut(host, ":")
	if hasPort && !validPort(port) {
		return "has a port that is not a number from 1 to 65535"
	}
	if _, err := netip.ParseAddr(name); err != nil && !isRegistryName(name) {
		return "is not a registry host: a DNS name or an IPv4 address with an optional :port, such as \"registry.k8s.io\" or \"10.0.0.5:5000\", or \"_default\" for every registry without its own entry"
	}
	return ""
}

// RegistryMirror is endpoint as containerd's hosts.toml names a mirror
// (scheme://host[:port], its trailing slash dropped), or why it cannot be
// one. The reason never repeats endpoint, which may hold a password.
func RegistryMirror(endpoint string) (string, string) {
	if strings.ContainsFunc(endpoint, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return "", "holds a space or a control character"
	}
	u, err := url.Parse(endpoint)
	switch {
	case err != nil || u.Opaque != "" || u.Host == "":
		return "", "is not a URL such as \"https://mirror.example:5000\" or \"http://10.0.0.5:5000\""
	case u.Scheme != "http" && u.Scheme != "https":
		return "", "is not an http or https URL"
	case u.User != nil:
		return "", "holds credentials: containerd takes a mirror's credentials elsewhere, and eggo would show them in plans"
	case u.Path != "" && u.Path != "/", u.RawQuery != "", u.ForceQuery, u.Fragment != "":
		return "", "has a path, query or fragment: a mirror is scheme://host[:port], and containerd adds /v2 itself"
	}
	if p := u.Port(); p != "" && !validPort(p) || strings.HasSuffix(u.Host, ":") {
		return "", "has a port that is not a number from 1 to 65535"
	}
	h := u.Hostname()
	if a, err := netip.ParseAddr(h); err == nil && a.Zone() != "" || err != nil && !isRegistryName(h) {
		return "", "does not name a host: a DNS name or an IP address (without a zone)"
	}
	return u.Scheme + "://" + u.Host, ""
}

// CheckRegistryMirrors checks a whole registry_mirrors map as the
// configuration gives it (its mirrors as RegistryMirror writes them).
func CheckRegistryMirrors(m map[string][]string) error {
	if len(m) > MaxMirroredRegistries {
		return fmt.Errorf("%d registries have mirrors; at most %d may", len(m), MaxMirroredRegistries)
	}
	for _, host := range slices.Sorted(maps.Keys(m)) {
		if msg := RegistryHostError(host); msg != "" {
			return fmt.Errorf("%q %s", host, msg)
		}
		list := m[host]
		if len(list) == 0 || len(list) > MaxRegistryMirrors {
			return fmt.Errorf("%s has %d mirrors; give 1 to %d", host, len(list), MaxRegistryMirrors)
		}
		for i, e := range list {
			if norm, msg := RegistryMirror(e); msg != "" || norm != e {
				return fmt.Errorf("%s's mirror %d is not scheme://host[:port]", host, i+1)
			}
			if slices.Index(list, e) != i {
				return fmt.Errorf("%s's mirror %d repeats mirror %d", host, i+1, slices.Index(list, e)+1)
			}
		}
	}
	return nil
}

// isRegistryName reports whether s is a DNS name: labels of letters,
// digits and inner hyphens, without a trailing dot (an image name has
// none), and not digits and dots only (a mistyped IPv4 address).
func isRegistryName(s string) bool {
	if s == "" || len(s) > 253 || strings.Trim(s, "0123456789.") == "" {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535 && strconv.Itoa(n) == p
}
