package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// A node's own Kubernetes registration: the taints its Node carries and
// the providerID its kubelet registers, each checked as the API server
// would check it, at its line.

// taintEffects are the effects a taint may have.
var taintEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}

// decodeTaints reads taints, ["key=value:Effect" or "key:Effect"] as
// kubectl taint writes them, refusing one Kubernetes would refuse, or a
// key given twice with one effect, at its element.
func decodeTaints(dec *decoder, attrs hcl.Attributes) []string {
	a, ok := attrs["taints"]
	if !ok {
		return nil
	}
	taints, ok := dec.stringList(attrs, "taints")
	if !ok {
		return nil
	}
	seen := map[string]bool{}
	for i, t := range taints {
		rng := elementRange(a.Expr, i, len(taints))
		key, why := taintError(t)
		switch {
		case why != "":
			dec.errorf(rng, "Invalid taint", "The taint %s %s. A taint is \"key=value:Effect\" or \"key:Effect\", as kubectl taint "+
				"writes it: a label key, an optional label value, and an effect (%s).", quoted(t), why, strings.Join(taintEffects, ", "))
		case seen[key]:
			dec.errorf(rng, "Duplicate taint", "The taint %s repeats a key and effect already listed.", quoted(t))
		}
		seen[key] = true
	}
	return taints
}

// taintError checks one taint: its key and effect ("key:Effect", what
// makes two taints the same), and what is wrong ("" when nothing).
func taintError(t string) (string, string) {
	kv, effect, ok := strings.Cut(t, ":")
	if !ok {
		return "", "has no effect after ':'"
	}
	key, value, _ := strings.Cut(kv, "=")
	if why := labelKeyError(key); why != "" {
		return "", fmt.Sprintf("has the key %s, which %s", quoted(key), why)
	}
	if why := labelValueError(value); why != "" {
		return "", fmt.Sprintf("has the value %s, which %s", quoted(value), why)
	}
	for _, e := range taintEffects {
		if effect == e {
			return key + ":" + effect, ""
		}
	}
	return "", fmt.Sprintf("has the effect %s", quoted(effect))
}

// maxProviderID is the most a Machine's spec.providerID may hold (Cluster
// API's contract); the Node's is the kubelet's --provider-id.
const maxProviderID = 512

// decodeProviderID reads provider_id: the Node's spec.providerID, which
// the kubelet registers and which then never changes.
func decodeProviderID(dec *decoder, attrs hcl.Attributes) string {
	a, ok := attrs["provider_id"]
	if !ok {
		return ""
	}
	id := dec.str(attrs, "provider_id", "")
	if dec.isUnknown(attrs, "provider_id") {
		return id
	}
	why := ""
	switch {
	case id == "":
		why = "is empty (leave provider_id out for none)"
	case len(id) > maxProviderID:
		why = fmt.Sprintf("is %d characters long, more than %d", len(id), maxProviderID)
	case strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		why = "holds a space or a control character"
	case !strings.Contains(id, "://"):
		why = "has no scheme: a provider ID is a URL-like PROVIDER://ID, e.g. \"eggo://clusters/h1/0b6c1d3e\""
	}
	if why != "" {
		dec.errorf(a.Expr.Range(), "Invalid provider_id", "provider_id %s %s.", dec.show(a, id), why)
	}
	return id
}
