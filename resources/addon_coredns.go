package resources

import (
	"fmt"

	"github.com/eggo-project/eggo/resources/pki"
	"github.com/eggo-project/eggo/resources/templates"
)

// CoreDNSImage is the image the bundle ships as coredns.tar
// (internal/bundle/scripts/coredns.sh builds it from the release its
// module pins); the add-on's pods run it with imagePullPolicy: Never.
const CoreDNSImage = "registry.k8s.io/coredns/coredns:v1.11.3"

// CoreDNSArchive is the bundle file that carries CoreDNSImage, under each
// arch's tree; containerd imports it on every worker.
const CoreDNSArchive = "var/lib/eggo/images/coredns.tar"

const coreDNSAddon = "coredns"

// ClusterDNSIP is the cluster DNS Service's address: the tenth of the
// service range (10.96.0.0/12 → 10.96.0.10), where kubelet's clusterDNS
// points pods. It must stay the computation kubelet's configuration makes.
func ClusterDNSIP(serviceCIDR string) (string, error) {
	ip, err := pki.ServiceIP(serviceCIDR)
	if err != nil {
		return "", err
	}
	b := ip.As4()
	b[3] += 9
	return fmt.Sprintf("%d.%d.%d.%d", b[0], b[1], b[2], b[3]), nil
}

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
		Image: attrString(m["image"]), Replicas: attrInt(m["replicas"]), DNSIP: attrString(m["dns_ip"]),
		DNSDomain: attrString(m["dns_domain"]), Upstream: stringList(m["upstream"]),
	}
}

// coreDNSDesired is addon.coredns. The bundle, when the cluster names one,
// must carry the image for every worker's arch: without it the pods could
// never start (no registry is reachable).
func coreDNSDesired(c *Cluster, workers []Node) (Desired, error) {
	if len(workers) == 0 {
		return Desired{}, fmt.Errorf("%s: the coredns add-on needs a worker node to run on, and cluster %q has none", c.Source, c.Name)
	}
	if c.Packages != "" {
		for _, w := range workers {
			if p, why := bundleLacks(c, w, CoreDNSArchive); why != "" {
				return Desired{}, fmt.Errorf("%s: the coredns add-on needs the image %s from the package bundle for worker %q, but %s (%s; build it with make bundle, or set addons { coredns = false })",
					c.Source, CoreDNSImage, w.Name, why, p)
			}
		}
	}
	dnsIP, err := ClusterDNSIP(c.Network.ServiceCIDR)
	if err != nil {
		return Desired{}, fmt.Errorf("%s: the coredns add-on's address: %w", c.Source, err)
	}
	s := coreDNSSettings{
		Image:     CoreDNSImage,
		Replicas:  max(c.Addons.CoreDNSReplicas, 1),
		DNSIP:     dnsIP,
		DNSDomain: attrOr(c.Network.DNSDomain, pki.DefaultDNSDomain),
		Upstream:  c.Addons.CoreDNSUpstream,
	}
	manifest, err := renderCoreDNS(s)
	if err != nil {
		return Desired{}, fmt.Errorf("%s: the coredns add-on's manifest: %w", c.Source, err)
	}
	return Desired{
		Addr:   AddonAddr(coreDNSAddon),
		Kind:   "addon",
		Source: c.Source,
		Attrs:  Attrs{addonSHA256: sha256Hex(manifest), addonCoreDNS: s.attrs()},
	}, nil
}

// renderCoreDNS is the CoreDNS add-on's manifest (templates/coredns.yaml.tmpl
// and templates/corefile.tmpl): upstream's (kubeadm's) objects, with the
// image from the bundle and never pulled, and upstream's Corefile for the
// cluster's domain (without upstream resolvers, no forward block).
func renderCoreDNS(s coreDNSSettings) (string, error) {
	return templates.CoreDNS(templates.CoreDNSData{Image: s.Image, Replicas: s.Replicas, DNSIP: s.DNSIP, DNSDomain: s.DNSDomain, Upstream: s.Upstream})
}
