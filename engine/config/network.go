package config

import (
	"github.com/eggo-project/eggo/internal/text"
	"net/netip"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/resources"
)

func (l *loader) decodeNetwork(dec *decoder, cb *clusterBlock) resources.Network {
	n := resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16", DNSDomain: resources.DefaultDNSDomain}
	if cb.network == nil {
		return n
	}
	content, diags := cb.network.Body.Content(networkSchema)
	dec.diags = append(dec.diags, diags...)
	attrs := content.Attributes
	n.ServiceCIDR = dec.str(attrs, "service_cidr", n.ServiceCIDR)
	n.PodCIDR = dec.str(attrs, "pod_cidr", n.PodCIDR)
	n.DNSDomain = dec.str(attrs, "dns_domain", n.DNSDomain)

	service, okS := checkCIDR(dec, attrs, "service_cidr", n.ServiceCIDR)
	pod, okP := checkCIDR(dec, attrs, "pod_cidr", n.PodCIDR)
	if okS && okP && service.Overlaps(pod) && !dec.isUnknown(attrs, "service_cidr", "pod_cidr") {
		// Point at the range the user wrote last: pod_cidr if set, else service_cidr.
		rng := cb.network.DefRange
		if a, ok := attrs["pod_cidr"]; ok {
			rng = a.Expr.Range()
		} else if a, ok := attrs["service_cidr"]; ok {
			rng = a.Expr.Range()
		}
		dec.errorf(rng, "Service and pod ranges overlap",
			"service_cidr %s and pod_cidr %s overlap; Kubernetes needs them disjoint. Choose ranges that share no address.",
			service, pod)
	}
	if !isHostname(n.DNSDomain) {
		dec.errorf(attrs["dns_domain"].Expr.Range(), "Invalid dns_domain",
			"dns_domain must be a DNS name like \"cluster.local\"; got %s.", dec.show(attrs["dns_domain"], n.DNSDomain))
	}
	return n
}

// checkCIDR parses a network range, which must be written as the network
// address itself: "10.32.0.1/16" is most likely a typo for a different range.
func checkCIDR(dec *decoder, attrs hcl.Attributes, name, s string) (netip.Prefix, bool) {
	a := attrs[name]
	p, err := netip.ParsePrefix(s)
	if err != nil {
		if a != nil {
			dec.errorf(a.Expr.Range(), "Invalid CIDR",
				"%s must be an address range in CIDR notation like \"10.32.0.0/16\"; got %s.", name, dec.show(a, s))
		}
		return p, false
	}
	if p != p.Masked() {
		if a != nil {
			dec.errorf(a.Expr.Range(), "Invalid CIDR",
				"%s %s has bits set after the prefix length; did you mean %q?", name, dec.show(a, s), p.Masked().String())
		}
		return p, false
	}
	return p, true
}

// maxValidity bounds validity and ca_validity: 100 years.
const maxValidity = 100 * 365 * 24 * time.Hour

func decodeCertificates(dec *decoder, b *hcl.Block) resources.Certificates {
	c := resources.Certificates{
		Validity:    8760 * time.Hour,
		CAValidity:  87600 * time.Hour,
		RenewBefore: 720 * time.Hour,
		ExtraSANs:   []string{},
	}
	if b == nil {
		return c
	}
	content, diags := b.Body.Content(certificatesSchema)
	dec.diags = append(dec.diags, diags...)
	attrs := content.Attributes
	c.Validity = dec.duration(attrs, "validity", c.Validity)
	c.CAValidity = dec.duration(attrs, "ca_validity", c.CAValidity)
	c.RenewBefore = dec.duration(attrs, "renew_before", c.RenewBefore)
	dec.atLeast(attrs, "validity", c.Validity, time.Hour, "a certificate must outlive the run that issues it")
	dec.atLeast(attrs, "ca_validity", c.CAValidity, time.Hour, "a CA must outlive the run that issues it")
	dec.atLeast(attrs, "renew_before", c.RenewBefore, time.Minute, "with less, a certificate expires before a run can renew it")
	dec.atMost(attrs, "validity", c.Validity, maxValidity, "no cluster lives a century, so a longer one is a typo")
	dec.atMost(attrs, "ca_validity", c.CAValidity, maxValidity, "no cluster lives a century, so a longer one is a typo")
	if sans, ok := dec.stringList(attrs, "extra_sans"); ok {
		for i, san := range sans {
			if !isHost(strings.TrimPrefix(san, "*.")) {
				dec.errorf(elementRange(attrs["extra_sans"].Expr, i, len(sans)), "Invalid extra_sans entry",
					"Each of extra_sans must be an IP address or DNS name (optionally starting with \"*.\"); got %s.", quoted(san))
			}
		}
		c.ExtraSANs = sans
	}
	pick := func(names ...string) hcl.Range {
		for _, n := range names {
			if a, ok := attrs[n]; ok {
				return a.Expr.Range()
			}
		}
		return b.DefRange
	}
	c.Clients = decodeClients(dec, content.Blocks, c.CAValidity, dec.isUnknown(attrs, "ca_validity"))
	if dec.isUnknown(attrs, "validity", "ca_validity", "renew_before") {
		return c // validate mode: one side of the comparisons below is not known
	}
	if c.RenewBefore >= c.Validity {
		dec.errorf(pick("renew_before", "validity"), "Invalid renew_before",
			"renew_before (%s) must be shorter than validity (%s), or certificates would be renewed as soon as they are made.",
			text.Duration(c.RenewBefore), text.Duration(c.Validity))
	}
	if c.Validity > c.CAValidity {
		dec.errorf(pick("validity", "ca_validity"), "Invalid validity",
			"validity (%s) must not be longer than ca_validity (%s): a certificate cannot outlive its CA.",
			text.Duration(c.Validity), text.Duration(c.CAValidity))
	}
	return c
}
