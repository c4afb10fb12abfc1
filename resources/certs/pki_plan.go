package certs

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/pki"
)

// Plan decides a pki resource's change. A new type or common name, or a CA
// within renew_before of its expiry, replaces it: a new key, and with it
// every certificate it signed (their ca Ref becomes unknown). A new
// validity or renew_before is only recorded: the keys stay, so nothing
// downstream changes.
func (p *PKI) Plan(_ context.Context, _ *resources.RunContext, prior *resources.Object, desired resources.Desired) (resources.Change, error) {
	typ := resources.AttrString(desired.Attrs[pkiType])
	computed := pkiComputedOf(typ)
	ch := resources.Change{Addr: desired.Addr, Kind: p.Name(), Node: desired.Node}
	if prior == nil || resources.AttrString(prior.Attrs[pkiKey]) == "" {
		ch.Action = resources.Create
		ch.Reasons = []resources.Reason{{Code: resources.ReasonNew}}
		if prior != nil {
			ch.Reasons = []resources.Reason{{Code: resources.ReasonPending, Detail: "a previous apply stopped while creating it"}}
		}
		ch.After = withComputed(desired.Attrs, nil, false, computed...)
		ch.Changed = resources.ChangedAttrs(p.Schema(), nil, desired.Attrs)
		return ch, nil
	}
	ch.Before = prior.Attrs
	ch.Changed = resources.ChangedAttrs(p.Schema(), prior.Attrs, desired.Attrs)

	replace, err := p.replaceReasons(prior.Attrs, desired)
	if err != nil {
		return resources.Change{}, err
	}
	if len(replace) > 0 {
		ch.Action = resources.Replace
		ch.Reasons = replace
		ch.After = withComputed(desired.Attrs, nil, false, computed...)
		return ch, nil
	}
	if len(ch.Changed) > 0 {
		ch.Action = resources.Update
		ch.Reasons = []resources.Reason{{Code: resources.ReasonConfig, Detail: strings.Join(ch.Changed, ", ") +
			" (recorded; the key stays until the next replacement)"}}
		ch.After = withComputed(desired.Attrs, prior.Attrs, true, computed...)
		return ch, nil
	}
	if prior.Pending {
		// A state-only update stopped before it was recorded: record it
		// again so the resource stops being pending.
		ch.Action = resources.Update
		ch.Reasons = []resources.Reason{{Code: resources.ReasonPending, Detail: "a previous apply stopped while changing it; recording it again"}}
		ch.After = withComputed(desired.Attrs, prior.Attrs, true, computed...)
		return ch, nil
	}
	ch.Action = resources.NoOp
	ch.After = prior.Attrs
	ch.Changed = nil
	return ch, nil
}

// replaceReasons are the reasons to make a new key, none if it may stay.
func (p *PKI) replaceReasons(prior resources.Attrs, desired resources.Desired) ([]resources.Reason, error) {
	var forced []string
	for _, name := range []string{pkiType, pkiCommonName} {
		if b, a := resources.AttrString(prior[name]), resources.AttrString(desired.Attrs[name]); b != a {
			forced = append(forced, fmt.Sprintf("%s %q → %q", name, b, a))
		}
	}
	if len(forced) > 0 {
		return []resources.Reason{{Code: resources.ReasonConfig, Detail: "forces a new key: " + strings.Join(forced, ", ")}}, nil
	}
	if resources.AttrString(desired.Attrs[pkiType]) != pkiTypeCA {
		if resources.AttrString(prior[pkiPublicKey]) == "" {
			return []resources.Reason{{Code: resources.ReasonDrift, Detail: "the recorded public key is missing"}}, nil
		}
		return nil, nil
	}
	info, err := pki.Inspect(resources.AttrString(prior[pkiCert]))
	if err != nil {
		// The error describes the PEM structure, never the key.
		return []resources.Reason{{Code: resources.ReasonDrift, Detail: "the recorded certificate is unreadable: " + err.Error()}}, nil
	}
	renewBefore, err := parseDurationAttr(desired.Addr, desired.Attrs, pkiRenewBefore)
	if err != nil {
		return nil, err
	}
	if r, due := expiryReason(info.NotAfter, renewBefore, p.now()); due {
		return []resources.Reason{r}, nil
	}
	return nil, nil
}

// notAfterText is how not_after is recorded: RFC 3339 in UTC, seconds only.
func notAfterText(t time.Time) string { return t.UTC().Format(time.RFC3339) }
