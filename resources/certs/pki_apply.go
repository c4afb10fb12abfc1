package certs

import (
	"context"
	"fmt"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/pki"
)

// Create makes a new CA or service-account key. Nothing is half-made: on
// error there is nothing to record.
func (p *PKI) Create(_ context.Context, _ *resources.RunContext, desired resources.Desired, _ resources.Change) (resources.Attrs, error) {
	out := make(resources.Attrs, len(desired.Attrs)+3)
	for k, v := range desired.Attrs {
		out[k] = v
	}
	switch typ := resources.AttrString(desired.Attrs[pkiType]); typ {
	case pkiTypeCA:
		validity, err := parseDurationAttr(desired.Addr, desired.Attrs, pkiValidity)
		if err != nil {
			return nil, err
		}
		kp, err := pki.NewCA(resources.AttrString(desired.Attrs[pkiCommonName]), validity, p.now())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", desired.Addr, err)
		}
		info, err := pki.Inspect(kp.CertPEM)
		if err != nil {
			return nil, fmt.Errorf("%s: reading the new CA: %w", desired.Addr, err)
		}
		out[pkiCert], out[pkiKey], out[pkiNotAfter] = kp.CertPEM, kp.KeyPEM, notAfterText(info.NotAfter)
	case pkiTypeServiceAccount:
		k, err := pki.NewServiceAccountKey()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", desired.Addr, err)
		}
		out[pkiPublicKey], out[pkiKey] = k.PublicPEM, k.PrivatePEM
	default:
		return nil, fmt.Errorf("%s: type %q is neither %q nor %q", desired.Addr, typ, pkiTypeCA, pkiTypeServiceAccount)
	}
	return out, nil
}

// Update records new settings and keeps the key material: Plan replaces
// whenever a new key is needed.
func (p *PKI) Update(_ context.Context, _ *resources.RunContext, prior resources.Object, desired resources.Desired, _ resources.Change) (resources.Attrs, error) {
	return withComputed(desired.Attrs, prior.Attrs, true, pkiComputedOf(resources.AttrString(desired.Attrs[pkiType]))...), nil
}

// Read returns what state recorded: the state is the only copy, so there
// is nothing live to drift from.
func (p *PKI) Read(_ context.Context, _ *resources.RunContext, prior resources.Object) (resources.Attrs, []resources.Reason, error) {
	return prior.Attrs, nil, nil
}

// Delete forgets the keys: they exist nowhere but in the state, which the
// engine drops the record from.
func (p *PKI) Delete(context.Context, *resources.RunContext, resources.Object) (resources.Attrs, error) {
	return nil, nil
}
