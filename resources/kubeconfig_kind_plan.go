package resources

import (
	"context"
	"slices"
	"strings"
)

// Plan decides the kubeconfig's change: rewritten when any input changes
// (a new admin certificate, CA or endpoint), when refresh found the file
// missing or modified, and when the file would move (a renamed cluster).
func (k *Kubeconfig) Plan(_ context.Context, _ *RunContext, prior *Object, desired Desired) (Change, error) {
	path, err := kubeconfigPath(attrString(desired.Attrs[kcCluster]))
	if err != nil {
		return Change{}, err
	}
	after := kubeconfigRecordable(desired.Attrs)
	after[kcPath] = path
	content, known := kubeconfigContent(desired.Attrs)
	after[kcSHA256] = Unknown{}
	if known {
		after[kcSHA256] = sha256Text(content)
	}
	ch := Change{Addr: desired.Addr, Kind: k.Name(), Node: desired.Node, After: after}
	if prior == nil || attrString(prior.Attrs[kcSHA256]) == "" {
		ch.Action = Create
		ch.Reasons = []Reason{{Code: ReasonNew}}
		if prior != nil {
			ch.Reasons = []Reason{{Code: ReasonPending, Detail: "a previous apply stopped while writing it"}}
		}
		ch.Changed = ChangedAttrs(k.Schema(), nil, desired.Attrs)
		return ch, nil
	}
	ch.Before = prior.Attrs
	changed := ChangedAttrs(k.Schema(), prior.Attrs, after)
	// The key is not recorded: it changed if nothing else explains a new
	// content, or if it is known only after apply.
	_, keyKnown := desired.Attrs[kcKey].(string)
	if !keyKnown || known && after[kcSHA256] != prior.Attrs[kcSHA256] && len(changed) == 0 {
		changed = append(changed, kcKey)
		slices.Sort(changed)
	}
	if p := attrString(prior.Attrs[kcPath]); p != path {
		changed = append(changed, kcPath)
	}
	ch.Changed = changed
	if len(changed) > 0 {
		ch.Reasons = append(ch.Reasons, Reason{Code: ReasonConfig, Detail: "changed: " + strings.Join(changed, ", ")})
	}
	if d := attrString(prior.Attrs[kcDrift]); d != "" {
		ch.Reasons = append(ch.Reasons, kubeconfigDriftReason(attrString(prior.Attrs[kcPath]), d))
	}
	if prior.Pending && len(ch.Reasons) == 0 {
		ch.Reasons = []Reason{{Code: ReasonPending, Detail: "a previous apply stopped while writing it"}}
	}
	if len(ch.Reasons) == 0 {
		ch.Action, ch.After, ch.Changed = NoOp, prior.Attrs, nil
		return ch, nil
	}
	ch.Action = Update
	return ch, nil
}
