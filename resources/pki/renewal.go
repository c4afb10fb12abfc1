package pki

import (
	"github.com/eggo-project/eggo/internal/text"

	"fmt"
	"slices"
	"strings"
	"time"
)

// NeedsRenewal reports whether the certificate in certPEM should be
// replaced by one issued for spec by the CA in caPEM, and why, in words fit
// for a plan. It renews when the certificate cannot be read, was not signed
// by that CA's key ("issuer changed"), expires within renewBefore, or names
// a different subject, organization, SAN set or usage than spec. Every reason
// found is reported, joined by "; ". spec.Validity is not compared (a new
// validity applies at the next renewal, without churn) and may be zero; a
// spec whose names do not normalize is reported, since issuing would fail.
func NeedsRenewal(certPEM string, spec CertSpec, caPEM string, renewBefore time.Duration, now time.Time) (bool, string) {
	cert, err := ParseCertificate(certPEM)
	if err != nil {
		return true, "certificate unreadable: " + err.Error()
	}
	want, err := spec.normalizeIdentity()
	if err != nil {
		return true, err.Error()
	}
	var reasons []string
	ca, err := ParseCertificate(caPEM)
	switch {
	case err != nil:
		reasons = append(reasons, "CA unreadable: "+err.Error())
	case cert.CheckSignatureFrom(ca) != nil:
		reasons = append(reasons, "issuer changed")
	}
	switch {
	case !now.Before(cert.NotAfter):
		reasons = append(reasons, "expired "+cert.NotAfter.UTC().Format(time.DateOnly))
	case cert.NotAfter.Sub(now) <= renewBefore:
		reasons = append(reasons, fmt.Sprintf("expires %s, within renew_before %s",
			cert.NotAfter.UTC().Format(time.DateOnly), FormatDuration(renewBefore)))
	}
	have := infoOf(cert)
	if have.CommonName != want.CommonName {
		reasons = append(reasons, fmt.Sprintf("common name changed: %q -> %q", have.CommonName, want.CommonName))
	}
	if !slices.Equal(have.Organization, want.Organization) {
		reasons = append(reasons, fmt.Sprintf("organization changed: [%s] -> [%s]",
			strings.Join(have.Organization, ", "), strings.Join(want.Organization, ", ")))
	}
	if d := SANDiff(append(have.DNSNames, have.IPs...), want.SANs()); d != "" {
		reasons = append(reasons, "SANs changed: "+d)
	}
	if have.Server != want.Server || have.Client != want.Client {
		reasons = append(reasons, fmt.Sprintf("usages changed: %s -> %s",
			usageText(have.Server, have.Client), usageText(want.Server, want.Client)))
	}
	if len(reasons) == 0 {
		return false, ""
	}
	return true, strings.Join(reasons, "; ")
}

// SANDiff lists names added ("+ x") then removed ("- y"), each sorted.
func SANDiff(have, want []string) string {
	var added, removed []string
	for _, n := range want {
		if !slices.Contains(have, n) {
			added = append(added, "+ "+n)
		}
	}
	for _, n := range have {
		if !slices.Contains(want, n) {
			removed = append(removed, "- "+n)
		}
	}
	return strings.Join(append(added, removed...), ", ")
}

func usageText(server, client bool) string {
	var u []string
	if server {
		u = append(u, "server")
	}
	if client {
		u = append(u, "client")
	}
	if len(u) == 0 {
		return "none"
	}
	return strings.Join(u, "+")
}

// FormatDuration prints 720h rather than Go's 720h0m0s: the form users
// write in HCL, and what plans show.
func FormatDuration(d time.Duration) string { return text.Duration(d) }
