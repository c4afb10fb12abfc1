package addon

import (
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/templates"
)

const coreDNSAddon = "coredns"

// coreDNSSettings are what the CoreDNS manifest is rendered from; they are
// the add-on's coredns attribute, so a change to any re-applies it.
type coreDNSSettings struct {
	Image     string
	Replicas  int
	DNSIP     string
	DNSDomain string
	Upstream  []string
}

func (s coreDNSSettings) attrs() map[string]any {
	up := make([]any, len(s.Upstream))
	for i, u := range s.Upstream {
		up[i] = u
	}
	return map[string]any{"image": s.Image, "replicas": float64(s.Replicas), "dns_ip": s.DNSIP, "dns_domain": s.DNSDomain, "upstream": up}
}

func coreDNSSettingsFromAttrs(m map[string]any) coreDNSSettings {
	return coreDNSSettings{
		Image: resources.AttrString(m["image"]), Replicas: resources.AttrInt(m["replicas"]), DNSIP: resources.AttrString(m["dns_ip"]),
		DNSDomain: resources.AttrString(m["dns_domain"]), Upstream: resources.StringList(m["upstream"]),
	}
}

// coreDNSDesired is addon.coredns. The bundle, when the cluster names one,
// must carry the image for the arch of every Node its pods may run on
// (nodes): without it the pods could never start (no registry is
// reachable).
func coreDNSDesired(c *resources.Cluster, nodes []resources.Node) (resources.Desired, error) {
	if len(nodes) == 0 {
		return resources.Desired{}, resources.Blame(c.At("addons.coredns"), "CoreDNS without a worker",
			"the coredns add-on needs a worker node to run on (or schedule_on_masters = true), and cluster %q has none", c.Name)
	}
	if c.Packages != "" {
		for _, w := range nodes {
			if p, why := resources.BundleLacks(c, w, resources.CoreDNSArchive); why != "" {
				return resources.Desired{}, resources.Blame(c.At("addons.coredns"), "Missing file in the package bundle",
					"the coredns add-on needs the image %s from the package bundle for node %q, but %s (%s; build it with make bundle, or set addons { coredns = false })",
					c.Minor().CoreDNS, w.Name, why, p)
			}
		}
	}
	dnsIP, err := resources.ClusterDNSIP(c.Network.ServiceCIDR)
	if err != nil {
		return resources.Desired{}, resources.Blame(c.At("network.service_cidr"), "No address for CoreDNS", "the coredns add-on's address: %v", err)
	}
	s := coreDNSSettings{
		// The minor's image, which the bundle ships as coredns.tar
		// (tools/bundle/scripts/coredns.sh builds it from the release its
		// module pins); the pods run it with imagePullPolicy: Never.
		Image:     c.Minor().CoreDNS,
		Replicas:  max(c.Addons.CoreDNSReplicas, 1),
		DNSIP:     dnsIP,
		DNSDomain: c.DNSDomain(),
		Upstream:  c.Addons.CoreDNSUpstream,
	}
	manifest, err := renderCoreDNS(s)
	if err != nil {
		return resources.Desired{}, resources.Blame(c.At("addons.coredns"), "Cannot write the CoreDNS manifest", "the coredns add-on's manifest: %v", err)
	}
	return resources.Desired{
		Addr:   resources.AddonAddr(coreDNSAddon),
		Kind:   "addon",
		Source: c.Source,
		Range:  c.At("addons.coredns"),
		Attrs:  resources.Attrs{addonSHA256: resources.SHA256Hex(manifest), addonCoreDNS: s.attrs()},
	}, nil
}

// renderCoreDNS is the CoreDNS add-on's manifest (templates/coredns.yaml.tmpl
// and templates/corefile.tmpl): upstream's (kubeadm's) objects, with the
// image from the bundle and never pulled, and upstream's Corefile for the
// cluster's domain (without upstream resolvers, no forward block).
func renderCoreDNS(s coreDNSSettings) (string, error) {
	return templates.CoreDNS(templates.CoreDNSData{Image: s.Image, Replicas: s.Replicas, DNSIP: s.DNSIP, DNSDomain: s.DNSDomain, Upstream: s.Upstream})
}
