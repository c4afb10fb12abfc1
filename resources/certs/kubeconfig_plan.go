package certs

import (
	"context"
	"slices"
	"strings"

	"github.com/eggo-project/eggo/resources"
)

// Plan decides the kubeconfig's change: rewritten when any input changes
// (a new admin certificate, CA or endpoint), when refresh found the file
// missing or modified, and when the file would move (a renamed cluster).
func (k *Kubeconfig) Plan(_ context.Context, _ *resources.RunContext, prior *resources.Object, desired resources.Desired) (resources.Change, error) {
	path, err := kubeconfigPathOf(desired.Attrs)
	if err != nil {
		return resources.Change{}, err
	}
	after := kubeconfigRecordable(desired.Attrs)
	after[kcPath] = path
	content, known := kubeconfigContent(desired.Attrs)
	after[kcSHA256] = resources.Unknown{}
	if known {
		after[kcSHA256] = sha256Text(content)
	}
	ch := resources.Change{Addr: desired.Addr, Kind: k.Name(), Node: desired.Node, After: after}
	if prior == nil || resources.AttrString(prior.Attrs[kcSHA256]) == "" {
		ch.Action = resources.Create
		ch.Reasons = []resources.Reason{{Code: resources.ReasonNew}}
		if prior != nil {
			ch.Reasons = []resources.Reason{{Code: resources.ReasonPending, Detail: "a previous apply stopped while writing it"}}
		}
		ch.Changed = resources.ChangedAttrs(k.Schema(), nil, desired.Attrs)
		return ch, nil
	}
	ch.Before = prior.Attrs
	changed := resources.ChangedAttrs(k.Schema(), prior.Attrs, after)
	// The key is not recorded: it changed if nothing else explains a new
	// content, or if it is known only after apply.
	_, keyKnown := desired.Attrs[kcKey].(string)
	if !keyKnown || known && after[kcSHA256] != prior.Attrs[kcSHA256] && len(changed) == 0 {
		changed = append(changed, kcKey)
		slices.Sort(changed)
	}
	if p := resources.AttrString(prior.Attrs[kcPath]); p != path {
		changed = append(changed, kcPath)
	}
	ch.Changed = changed
	if len(changed) > 0 {
		ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonConfig, Detail: "changed: " + strings.Join(changed, ", ")})
	}
	if d := resources.AttrString(prior.Attrs[kcDrift]); d != "" {
		ch.Reasons = append(ch.Reasons, kubeconfigDriftReason(resources.AttrString(prior.Attrs[kcPath]), d))
	}
	if prior.Pending && len(ch.Reasons) == 0 {
		ch.Reasons = []resources.Reason{{Code: resources.ReasonPending, Detail: "a previous apply stopped while writing it"}}
	}
	if len(ch.Reasons) == 0 {
		ch.Action, ch.After, ch.Changed = resources.NoOp, prior.Attrs, nil
		return ch, nil
	}
	ch.Action = resources.Update
	return ch, nil
}
