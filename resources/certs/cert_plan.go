package certs

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/pki"
)

// Plan decides a certificate's change. The recorded certificate itself is
// the judge (pki.NeedsRenewal): it is replaced when its CA is being
// replaced or is another one, when what it says (names, groups, usages)
// differs from the config, or when it is within renew_before of expiry. A
// new validity or renew_before alone is recorded and applies at the next
// renewal. Reasons never quote key material: they are built from the
// certificates, which are public.
func (c *Cert) Plan(_ context.Context, _ *resources.RunContext, prior *resources.Object, desired resources.Desired) (resources.Change, error) {
	schema := plannedCertSchema()
	ch := resources.Change{Addr: desired.Addr, Kind: c.Name(), Node: desired.Node}
	if prior == nil || resources.AttrString(prior.Attrs[certCert]) == "" || resources.AttrString(prior.Attrs[certKey]) == "" {
		want := certRecordable(desired.Attrs)
		ch.Action = resources.Create
		ch.Reasons = []resources.Reason{{Code: resources.ReasonNew}}
		if prior != nil {
			ch.Reasons = []resources.Reason{{Code: resources.ReasonPending, Detail: "a previous apply stopped while creating it"}}
		}
		ch.After = withComputed(want, nil, false, certComputed...)
		ch.Changed = resources.ChangedAttrs(schema, nil, want)
		return ch, nil
	}
	ch.Before = prior.Attrs
	// The record to be (want) is made only for a change: most
	// certificates of a plan keep theirs.
	ch.Changed = recordChanges(schema, prior.Attrs, desired.Attrs)
	want := func() resources.Attrs { return certRecordable(desired.Attrs) }

	replace, err := c.replaceReasons(prior.Attrs, desired)
	if err != nil {
		return resources.Change{}, err
	}
	switch {
	case len(replace) > 0:
		ch.Action = resources.Replace
		ch.Reasons = replace
		ch.After = withComputed(want(), nil, false, certComputed...)
	case len(ch.Changed) > 0:
		ch.Action = resources.Update
		ch.Reasons = []resources.Reason{{Code: resources.ReasonConfig, Detail: strings.Join(ch.Changed, ", ") +
			" (recorded; applies at the next renewal)"}}
		ch.After = withComputed(want(), prior.Attrs, true, certComputed...)
	case prior.Pending:
		ch.Action = resources.Update
		ch.Reasons = []resources.Reason{{Code: resources.ReasonPending, Detail: "a previous apply stopped while changing it; recording it again"}}
		ch.After = withComputed(want(), prior.Attrs, true, certComputed...)
	default:
		ch.Action = resources.NoOp
		ch.After = prior.Attrs
		ch.Changed = nil
	}
	return ch, nil
}

// replaceReasons are the reasons to issue a new certificate, none if the
// recorded one may stay.
func (c *Cert) replaceReasons(prior resources.Attrs, desired resources.Desired) ([]resources.Reason, error) {
	issuer := resources.AttrString(desired.Attrs[certIssuer])
	caPEM, known := desired.Attrs[certCA].(string)
	if !known {
		// The engine plans a Ref as unknown while its target changes.
		return []resources.Reason{{Code: resources.ReasonConfig, Detail: "issuer " + issuer + " is being replaced: a new certificate signed by the new CA"}}, nil
	}
	spec, err := certSpecOf(desired.Addr, desired.Attrs)
	if err != nil {
		return nil, err
	}
	renewBefore, err := parseDurationAttr(desired.Addr, desired.Attrs, certRenewBefore)
	if err != nil {
		return nil, err
	}
	certPEM := resources.AttrString(prior[certCert])
	now := c.now()
	if caPEM == resources.AttrString(prior[certCA]) {
		// Issued by exactly this CA (Create records the CA it signed
		// with): no signature to verify, which is most of the cost of a
		// plan of a thousand certificates.
		return sameIssuerReasons(certPEM, spec, renewBefore, now), nil
	}
	renew, why := pki.NeedsRenewal(certPEM, spec, caPEM, renewBefore, now)
	if !renew {
		return nil, nil
	}
	var reasons []resources.Reason
	expiring := false
	for _, part := range strings.Split(why, "; ") {
		switch {
		case strings.HasPrefix(part, "expires ") || strings.HasPrefix(part, "expired "):
			expiring = true // worded below, from the certificate itself
		case part == "issuer changed":
			reasons = append(reasons, resources.Reason{Code: resources.ReasonConfig, Detail: "issuer changed: not signed by the current " + issuer})
		default:
			reasons = append(reasons, resources.Reason{Code: resources.ReasonConfig, Detail: part})
		}
	}
	if expiring {
		if info, err := pki.Inspect(certPEM); err == nil {
			if r, due := expiryReason(info.NotAfter, renewBefore, now); due {
				reasons = append(reasons, r)
			}
		}
	}
	if len(reasons) == 0 { // cannot happen while NeedsRenewal words every reason
		reasons = []resources.Reason{{Code: resources.ReasonConfig, Detail: why}}
	}
	return reasons, nil
}

// sameIssuerReasons judges a certificate whose CA has not changed: what it
// says against spec, worded as pki.NeedsRenewal words it, and its expiry.
func sameIssuerReasons(certPEM string, spec pki.CertSpec, renewBefore time.Duration, now time.Time) []resources.Reason {
	info, err := pki.Inspect(certPEM)
	if err != nil {
		return []resources.Reason{{Code: resources.ReasonDrift, Detail: "the recorded certificate is unreadable: " + err.Error()}}
	}
	want, err := spec.Normalize()
	if err != nil {
		return []resources.Reason{{Code: resources.ReasonConfig, Detail: err.Error()}}
	}
	var reasons []resources.Reason
	config := func(format string, args ...any) {
		reasons = append(reasons, resources.Reason{Code: resources.ReasonConfig, Detail: fmt.Sprintf(format, args...)})
	}
	if info.CommonName != want.CommonName {
		config("common name changed: %q -> %q", info.CommonName, want.CommonName)
	}
	if !slices.Equal(info.Organization, want.Organization) {
		config("organization changed: [%s] -> [%s]", strings.Join(info.Organization, ", "), strings.Join(want.Organization, ", "))
	}
	if d := pki.SANDiff(append(info.DNSNames, info.IPs...), want.SANs()); d != "" {
		config("SANs changed: %s", d)
	}
	if info.Server != want.Server || info.Client != want.Client {
		config("usages changed: %s -> %s", usageWords(info.Server, info.Client), usageWords(want.Server, want.Client))
	}
	if r, due := expiryReason(info.NotAfter, renewBefore, now); due {
		reasons = append(reasons, r)
	}
	return reasons
}

func usageWords(server, client bool) string {
	switch {
	case server && client:
		return "server+client"
	case server:
		return "server"
	case client:
		return "client"
	}
	return "none"
}
