package certs

import (
	"fmt"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/pki"
)

// Defaults of the certificates block. engine/config fills the same values;
// they are repeated here so a Cluster built in code (tests, other
// front ends) gets a working PKI rather than zero-length certificates.
const (
	defaultCertValidity    = 8760 * time.Hour
	defaultCAValidity      = 87600 * time.Hour
	defaultCertRenewBefore = 720 * time.Hour
)

// certSettings is the cluster's certificates block with defaults applied.
type certSettings struct {
	validity, caValidity, renewBefore time.Duration
}

func certSettingsOf(c *resources.Cluster) certSettings {
	s := certSettings{c.Certificates.Validity, c.Certificates.CAValidity, c.Certificates.RenewBefore}
	if s.validity <= 0 {
		s.validity = defaultCertValidity
	}
	if s.caValidity <= 0 {
		s.caValidity = defaultCAValidity
	}
	if s.renewBefore <= 0 {
		s.renewBefore = defaultCertRenewBefore
	}
	return s
}

// durationText prints 720h rather than Go's 720h0m0s: the form users write
// in HCL, and what plans show (pki.FormatDuration, which renewal reasons
// use too).
func durationText(d time.Duration) string { return pki.FormatDuration(d) }

// parseDurationAttr reads a duration attribute written by durationText.
func parseDurationAttr(addr string, a resources.Attrs, name string) (time.Duration, error) {
	s := resources.AttrString(a[name])
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s: %s %q is not a positive duration such as 8760h", addr, name, s)
	}
	return d, nil
}

// expiryReason is the Reason of a certificate that is due for renewal at
// now, or false when it is not.
func expiryReason(notAfter time.Time, renewBefore time.Duration, now time.Time) (resources.Reason, bool) {
	date := notAfter.UTC().Format(time.DateOnly)
	switch {
	case !now.Before(notAfter):
		return resources.Reason{Code: resources.ReasonExpiring, Detail: "expired " + date}, true
	case notAfter.Sub(now) <= renewBefore:
		return resources.Reason{Code: resources.ReasonExpiring, Detail: fmt.Sprintf("expires %s (within renew_before %s)", date, durationText(renewBefore))}, true
	}
	return resources.Reason{}, false
}

// withComputed is a planned After: the desired attributes plus each
// computed one, taken from prior when keep is set (the change leaves the
// key material alone) and known only after apply otherwise.
func withComputed(desired, prior resources.Attrs, keep bool, computed ...string) resources.Attrs {
	after := make(resources.Attrs, len(desired)+len(computed))
	for k, v := range desired {
		after[k] = v
	}
	for _, name := range computed {
		if v, ok := prior[name]; keep && ok {
			after[name] = v
		} else {
			after[name] = resources.Unknown{}
		}
	}
	return after
}
