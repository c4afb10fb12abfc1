package pki

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// CertSpec is what a leaf certificate should say. Normalize gives its
// canonical form; Issue and NeedsRenewal both use that form, so a spec that
// differs only in order, case or duplicates never causes a renewal.
type CertSpec struct {
	CommonName   string
	Organization []string      // Kubernetes reads these as group names
	DNSNames     []string      // lower-cased, sorted, deduplicated by Normalize
	IPs          []string      // textual addresses, sorted numerically by Normalize
	Server       bool          // ExtKeyUsage serverAuth
	Client       bool          // ExtKeyUsage clientAuth
	Validity     time.Duration // lifetime from issue time
}

// AddSANs appends names to DNSNames or IPs depending on whether each parses
// as an IP address, for inputs such as a node address or extra_sans that may
// be either. Empty strings are skipped.
func (s *CertSpec) AddSANs(names ...string) {
	for _, n := range names {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
		case isIP(n):
			s.IPs = append(s.IPs, n)
		default:
			s.DNSNames = append(s.DNSNames, n)
		}
	}
}

// Normalize checks the spec and returns its canonical form: SANs validated,
// lower-cased, sorted and deduplicated; organizations sorted and deduplicated.
func (s CertSpec) Normalize() (CertSpec, error) {
	out, err := s.normalizeIdentity()
	if err != nil {
		return CertSpec{}, err
	}
	if s.Validity <= 0 {
		return CertSpec{}, fmt.Errorf("certificate %q: validity %s is not positive", s.CommonName, s.Validity)
	}
	return out, nil
}

// normalizeIdentity is Normalize without the validity check: what a
// certificate says, which is all NeedsRenewal compares.
func (s CertSpec) normalizeIdentity() (CertSpec, error) {
	if strings.TrimSpace(s.CommonName) == "" {
		return CertSpec{}, errors.New("certificate spec: common name is empty")
	}
	if !s.Server && !s.Client {
		return CertSpec{}, fmt.Errorf("certificate %q: no usage (server or client)", s.CommonName)
	}
	out := s
	out.Organization = sortedUnique(s.Organization)
	dns, err := normalizeDNSNames(s.DNSNames)
	if err != nil {
		return CertSpec{}, fmt.Errorf("certificate %q: %w", s.CommonName, err)
	}
	out.DNSNames = dns
	ips, err := normalizeIPs(s.IPs)
	if err != nil {
		return CertSpec{}, fmt.Errorf("certificate %q: %w", s.CommonName, err)
	}
	out.IPs = ips
	return out, nil
}

// SANs returns all subject alternative names, DNS names then IPs, for display.
func (s CertSpec) SANs() []string {
	return append(slices.Clone(s.DNSNames), s.IPs...)
}

func normalizeDNSNames(names []string) ([]string, error) {
	out := make([]string, 0, len(names))
	for _, n := range names {
		n = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(n), "."))
		if err := checkDNSName(n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return sortedUnique(out), nil
}

// checkDNSName accepts RFC 1123 host names, a leading "*" label for
// wildcards and underscores (seen in real internal names); it rejects what
// would make an unusable certificate, such as spaces, ports or URLs.
func checkDNSName(n string) error {
	if n == "" {
		return errors.New("empty DNS name")
	}
	if len(n) > 253 {
		return fmt.Errorf("DNS name %q is longer than 253 characters", n)
	}
	for i, label := range strings.Split(n, ".") {
		if label == "*" && i == 0 {
			continue
		}
		if label == "" || len(label) > 63 {
			return fmt.Errorf("DNS name %q has an empty or over-long label", n)
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("DNS name %q has a label starting or ending with '-'", n)
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return fmt.Errorf("DNS name %q contains %q", n, c)
			}
		}
	}
	return nil
}

func normalizeIPs(ips []string) ([]string, error) {
	addrs := make([]netip.Addr, 0, len(ips))
	for _, s := range ips {
		a, err := netip.ParseAddr(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("IP SAN %q is not an IP address", s)
		}
		addrs = append(addrs, a.Unmap().WithZone(""))
	}
	slices.SortFunc(addrs, netip.Addr.Compare)
	addrs = slices.Compact(addrs)
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = a.String()
	}
	return out, nil
}

func isIP(s string) bool {
	_, err := netip.ParseAddr(s)
	return err == nil
}

func sortedUnique(in []string) []string {
	out := slices.Clone(in)
	slices.Sort(out)
	return slices.Compact(out)
}
