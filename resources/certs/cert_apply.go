package certs

import (
	"context"
	"fmt"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/pki"
)

// Create issues a new key and certificate signed by the issuer's CA, whose
// certificate and key the engine substituted for the Refs. Nothing is
// half-made: on error there is nothing to record.
func (c *Cert) Create(_ context.Context, _ *resources.RunContext, desired resources.Desired, _ resources.Change) (resources.Attrs, error) {
	issuer := resources.AttrString(desired.Attrs[certIssuer])
	caPEM, ok1 := desired.Attrs[certCA].(string)
	caKeyPEM, ok2 := desired.Attrs[certCAKey].(string)
	if !ok1 || !ok2 || caPEM == "" || caKeyPEM == "" {
		return nil, fmt.Errorf("%s: the certificate or key of its CA %s is not known", desired.Addr, issuer)
	}
	spec, err := certSpecOf(desired.Addr, desired.Attrs)
	if err != nil {
		return nil, err
	}
	kp, err := pki.Issue(pki.KeyPair{CertPEM: caPEM, KeyPEM: caKeyPEM}, spec, c.now())
	if err != nil {
		// pki's errors name certificates, never key material.
		return nil, fmt.Errorf("%s (CA %s): %w", desired.Addr, issuer, err)
	}
	info, err := pki.Inspect(kp.CertPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: reading the new certificate: %w", desired.Addr, err)
	}
	out := certRecordable(desired.Attrs)
	out[certCert], out[certKey] = kp.CertPEM, kp.KeyPEM
	out[certNotAfter], out[certSerial] = notAfterText(info.NotAfter), info.Serial
	return out, nil
}

// Update records new settings and keeps the certificate: Plan replaces it
// whenever a new one is needed.
func (c *Cert) Update(_ context.Context, _ *resources.RunContext, prior resources.Object, desired resources.Desired, _ resources.Change) (resources.Attrs, error) {
	return withComputed(certRecordable(desired.Attrs), prior.Attrs, true, certComputed...), nil
}

// Read returns what state recorded: the state is the only copy. Expiry is
// judged by Plan, against the clock, on every plan.
func (c *Cert) Read(_ context.Context, _ *resources.RunContext, prior resources.Object) (resources.Attrs, []resources.Reason, error) {
	return prior.Attrs, nil, nil
}

// Delete forgets the certificate: hosts that hold a copy are the concern of
// the kinds that wrote it there.
func (c *Cert) Delete(context.Context, *resources.RunContext, resources.Object) (resources.Attrs, error) {
	return nil, nil
}
