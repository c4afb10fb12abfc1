package config

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/internal/text"
	"github.com/eggo-project/eggo/resources"
)

// The certificates block's client "NAME" blocks: each a client certificate
// of the cluster CA with a life of its own (CN "eggo:client:NAME", the
// groups as its O) and a kubeconfig beside the state that holds it,
// CLUSTER-NAME.kubeconfig (resources/certs/client.go).

// defaultClientValidity is a client's validity when none is written;
// renew_before defaults to a third of the validity.
const defaultClientValidity = 720 * time.Hour

// reservedClient names the admin kubeconfig's own certificate.
const reservedClient = "admin"

// decodeClients decodes the client blocks, in the order written. A
// client's validity may not exceed caValidity (unless caUnknown: validate
// mode, ca_validity not known).
func decodeClients(dec *decoder, blocks hcl.Blocks, caValidity time.Duration, caUnknown bool) []resources.ClientCert {
	if len(blocks) == 0 {
		return nil
	}
	out := make([]resources.ClientCert, 0, len(blocks))
	seen := map[string]*hcl.Block{}
	for _, b := range blocks {
		name := b.Labels[0]
		switch {
		case name == reservedClient:
			dec.errorf(b.LabelRanges[0], "Reserved client name",
				"%s is the cluster's own admin kubeconfig (kubeconfig.admin, written as CLUSTER.kubeconfig); give this client another name.", quoted(name))
		case !isDNSLabel(name):
			dec.errorf(b.LabelRanges[0], "Invalid client name",
				"%s is not a valid client name: it names cert.client[NAME], kubeconfig.client[NAME] and the file CLUSTER-NAME.kubeconfig, "+
					"so it must be lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters.", quoted(name))
		case seen[name] != nil:
			dec.diags = append(dec.diags, duplicateBlock(b, "client", seen[name]))
		default:
			seen[name] = b
		}
		out = append(out, decodeClient(dec, b, caValidity, caUnknown))
	}
	return out
}

// decodeClient decodes one client block.
func decodeClient(dec *decoder, b *hcl.Block, caValidity time.Duration, caUnknown bool) resources.ClientCert {
	content, diags := b.Body.Content(clientSchema)
	dec.diags = append(dec.diags, diags...)
	attrs := dec.require(clientSchema, content.Attributes)
	cc := resources.ClientCert{Name: b.Labels[0], Source: source(b.DefRange), Range: sourceRange(b.DefRange)}
	cc.Groups = decodeClientGroups(dec, attrs)
	errorsBefore := len(dec.diags)
	cc.Validity = dec.duration(attrs, "validity", defaultClientValidity)
	cc.RenewBefore = dec.duration(attrs, "renew_before", 0)
	dec.atLeast(attrs, "validity", cc.Validity, time.Hour, "a certificate must outlive the run that issues it")
	dec.atLeast(attrs, "renew_before", cc.RenewBefore, time.Minute, "with less, a certificate expires before a run can renew it")
	if cc.RenewBefore == 0 {
		cc.RenewBefore = cc.Validity / 3
	}
	if len(dec.diags) > errorsBefore || dec.isUnknown(attrs, "validity", "renew_before") {
		return cc // a duration's error said already, or validate mode: the comparisons below would mislead
	}
	rng := func(name string) hcl.Range {
		if a, ok := attrs[name]; ok {
			return a.Expr.Range()
		}
		return b.DefRange
	}
	if cc.RenewBefore >= cc.Validity {
		dec.errorf(rng("renew_before"), "Invalid renew_before",
			"renew_before (%s) of client %s must be shorter than its validity (%s), or its certificate would be renewed as soon as it is made.",
			text.Duration(cc.RenewBefore), quoted(cc.Name), text.Duration(cc.Validity))
	}
	if !caUnknown && cc.Validity > caValidity {
		dflt := ""
		if attrs["validity"] == nil {
			dflt = ", the default; set a shorter one"
		}
		dec.errorf(rng("validity"), "Invalid validity",
			"validity (%s%s) of client %s must not be longer than ca_validity (%s): a certificate cannot outlive its CA.",
			text.Duration(cc.Validity), dflt, quoted(cc.Name), text.Duration(caValidity))
	}
	return cc
}

// decodeClientGroups reads a client's groups: at least one, each a name
// written once.
func decodeClientGroups(dec *decoder, attrs hcl.Attributes) []string {
	groups, ok := dec.stringList(attrs, "groups")
	if !ok {
		return nil // absent (HCL said so), null, wrong or unknown: said already or not checkable
	}
	a := attrs["groups"]
	if len(groups) == 0 {
		dec.errorf(a.Expr.Range(), "Invalid groups",
			"groups must name at least one group: they are the certificate's organizations, which Kubernetes reads as the client's groups "+
				"(\"system:masters\" for a cluster administrator).")
		return nil
	}
	seen := map[string]bool{}
	for i, g := range groups {
		switch {
		case g == "":
			dec.errorf(elementRange(a.Expr, i, len(groups)), "Invalid groups entry", "Each of groups must be a group name; got \"\".")
		case seen[g]:
			dec.errorf(elementRange(a.Expr, i, len(groups)), "Duplicate groups entry", "%s is listed twice in groups; remove one.", quoted(g))
		}
		seen[g] = true
	}
	return groups
}
