package pki

import (
	"crypto/sha256"
	"crypto/x509"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// Info is what eggo shows and compares about a certificate. It holds no
// secret, so it may appear in plans and logs.
type Info struct {
	Subject      string // RFC 2253 form, e.g. "CN=kubernetes-admin,O=system:masters"
	CommonName   string
	Organization []string // sorted
	Issuer       string
	NotBefore    time.Time
	NotAfter     time.Time
	DNSNames     []string // lower-cased, sorted
	IPs          []string // sorted numerically
	Serial       string   // lower-case hex
	IsCA         bool
	Server       bool   // serverAuth usage
	Client       bool   // clientAuth usage
	SHA256       string // fingerprint of the DER, "AB:CD:…" as openssl prints it
}

// Inspect reads the first certificate in certPEM.
func Inspect(certPEM string) (Info, error) {
	cert, err := ParseCertificate(certPEM)
	if err != nil {
		return Info{}, err
	}
	return infoOf(cert), nil
}

func infoOf(cert *x509.Certificate) Info {
	info := Info{
		Subject:      cert.Subject.String(),
		CommonName:   cert.Subject.CommonName,
		Organization: sortedUnique(cert.Subject.Organization),
		Issuer:       cert.Issuer.String(),
		NotBefore:    cert.NotBefore.UTC(),
		NotAfter:     cert.NotAfter.UTC(),
		DNSNames:     certDNSNames(cert),
		IPs:          certIPs(cert),
		Serial:       cert.SerialNumber.Text(16),
		IsCA:         cert.IsCA,
		SHA256:       fingerprint(cert.Raw),
	}
	for _, u := range cert.ExtKeyUsage {
		switch u {
		case x509.ExtKeyUsageServerAuth:
			info.Server = true
		case x509.ExtKeyUsageClientAuth:
			info.Client = true
		case x509.ExtKeyUsageAny:
			info.Server, info.Client = true, true
		}
	}
	return info
}

func certDNSNames(cert *x509.Certificate) []string {
	out := make([]string, len(cert.DNSNames))
	for i, n := range cert.DNSNames {
		out[i] = strings.ToLower(n)
	}
	return sortedUnique(out)
}

func certIPs(cert *x509.Certificate) []string {
	addrs := make([]netip.Addr, 0, len(cert.IPAddresses))
	for _, ip := range cert.IPAddresses {
		if a, ok := netip.AddrFromSlice(ip); ok {
			addrs = append(addrs, a.Unmap())
		}
	}
	slices.SortFunc(addrs, netip.Addr.Compare)
	addrs = slices.Compact(addrs)
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = a.String()
	}
	return out
}

// fingerprint is der's sha256 as openssl prints it ("AB:CD:…"), written
// into one buffer: a plan inspects every recorded certificate, and a
// formatted string per byte was most of what Inspect added to parsing.
func fingerprint(der []byte) string {
	const digits = "0123456789ABCDEF"
	sum := sha256.Sum256(der)
	out := make([]byte, 0, 3*len(sum)-1)
	for i, b := range sum {
		if i > 0 {
			out = append(out, ':')
		}
		out = append(out, digits[b>>4], digits[b&0xf])
	}
	return string(out)
}
