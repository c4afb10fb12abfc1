package resources

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/eggo-project/eggo/resources/pki"
)

// Plan decides a pki resource's change. A new type or common name, or a CA
// within renew_before of its expiry, replaces it: a new key, and with it
// every certificate it signed (their ca Ref becomes unknown). A new
// validity or renew_before is only recorded: the keys stay, so nothing
// downstream changes.
func (p *PKI) Plan(_ context.Context, _ *RunContext, prior *Object, desired Desired) (Change, error) {
	typ := attrString(desired.Attrs[pkiType])
	computed := pkiComputedOf(typ)
	ch := Change{Addr: desired.Addr, Kind: p.Name(), Node: desired.Node}
	if prior == nil || attrString(prior.Attrs[pkiKey]) == "" {
		ch.Action = Create
		ch.Reasons = []Reason{{Code: ReasonNew}}
		if prior != nil {
			ch.Reasons = []Reason{{Code: ReasonPending, Detail: "a previous apply stopped while creating it"}}
		}
		ch.After = withComputed(desired.Attrs, nil, false, computed...)
		ch.Changed = ChangedAttrs(p.Schema(), nil, desired.Attrs)
		return ch, nil
	}
	ch.Before = prior.Attrs
	ch.Changed = ChangedAttrs(p.Schema(), prior.Attrs, desired.Attrs)

	replace, err := p.replaceReasons(prior.Attrs, desired)
	if err != nil {
		return Change{}, err
	}
	if len(replace) > 0 {
		ch.Action = Replace
		ch.Reasons = replace
		ch.After = withComputed(desired.Attrs, nil, false, computed...)
		return ch, nil
	}
	if len(ch.Changed) > 0 {
		ch.Action = Update
		ch.Reasons = []Reason{{Code: ReasonConfig, Detail: "changed in config: " + strings.Join(ch.Changed, ", ") +
			" (recorded; the key stays until the next replacement)"}}
		ch.After = withComputed(desired.Attrs, prior.Attrs, true, computed...)
		return ch, nil
	}
	if prior.Pending {
		// A state-only update stopped before it was recorded: record it
		// again so the resource stops being pending.
		ch.Action = Update
		ch.Reasons = []Reason{{Code: ReasonPending, Detail: "a previous apply stopped while changing it; recording it again"}}
		ch.After = withComputed(desired.Attrs, prior.Attrs, true, computed...)
		return ch, nil
	}
	ch.Action = NoOp
	ch.After = prior.Attrs
	ch.Changed = nil
	return ch, nil
}

// replaceReasons are the reasons to make a new key, none if it may stay.
func (p *PKI) replaceReasons(prior Attrs, desired Desired) ([]Reason, error) {
	var forced []string
	for _, name := range []string{pkiType, pkiCommonName} {
		if b, a := attrString(prior[name]), attrString(desired.Attrs[name]); b != a {
			forced = append(forced, fmt.Sprintf("%s %q → %q", name, b, a))
		}
	}
	if len(forced) > 0 {
		return []Reason{{Code: ReasonConfig, Detail: "changed in config (forces a new key): " + strings.Join(forced, ", ")}}, nil
	}
	if attrString(desired.Attrs[pkiType]) != pkiTypeCA {
		if attrString(prior[pkiPublicKey]) == "" {
			return []Reason{{Code: ReasonDrift, Detail: "the recorded public key is missing"}}, nil
		}
		return nil, nil
	}
	info, err := pki.Inspect(attrString(prior[pkiCert]))
	if err != nil {
		// The error describes the PEM structure, never the key.
		return []Reason{{Code: ReasonDrift, Detail: "the recorded certificate is unreadable: " + err.Error()}}, nil
	}
	renewBefore, err := parseDurationAttr(desired.Addr, desired.Attrs, pkiRenewBefore)
	if err != nil {
		return nil, err
	}
	if r, due := expiryReason(info.NotAfter, renewBefore, p.now()); due {
		return []Reason{r}, nil
	}
	return nil, nil
}

// notAfterText is how not_after is recorded: RFC 3339 in UTC, seconds only.
func notAfterText(t time.Time) string { return t.UTC().Format(time.RFC3339) }
