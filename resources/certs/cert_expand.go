package certs

import (
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/pki"
)

// Expand declares the cluster's leaf certificates. The control plane's
// (apiserver per master, its clients, admin, controller-manager,
// scheduler), the Nodes' (kubelet per master and worker, kube-proxy,
// flanneld) and the certificates block's clients (client.go) need a
// master, as the cluster CA exists only then; etcd's need etcd nodes.
func (c *Cert) Expand(cl *resources.Cluster) ([]resources.Desired, error) {
	s := certSettingsOf(cl)
	masters := cl.NodesWithRole("master")
	nodes := cl.KubeNodes()
	etcds := cl.NodesWithRole("etcd")
	out := make([]resources.Desired, 0, len(masters)+2*len(etcds)+len(nodes)+len(cl.Certificates.Clients)+8)
	add := func(name string, n *resources.Node, issuer string, spec pki.CertSpec, err error) error {
		d := resources.Desired{Addr: resources.CertAddr(name, ""), Kind: c.Name(), Source: cl.Source, Range: cl.Ranges.Block}
		if n != nil {
			d.Addr, d.Node, d.Source, d.Range = resources.CertAddr(name, n.Name), n.Name, n.Source, n.Ranges.Block
		}
		if err == nil {
			spec, err = spec.Normalize()
		}
		if err != nil {
			return resources.Blame(d.Where(), "Invalid certificate", "%s: %v", d.Addr, err)
		}
		d.Attrs = certAttrs(issuer, spec, s)
		out = append(out, d)
		return nil
	}
	cluster, etcd, front := resources.PKIAddr(resources.PKIClusterCA), resources.PKIAddr(resources.PKIEtcdCA), resources.PKIAddr(resources.PKIFrontProxyCA)

	if len(masters) > 0 {
		hosts := make([]pki.Host, len(masters))
		for i, m := range masters {
			hosts[i] = pki.Host{Name: m.Name, Address: m.Address}
		}
		spec, err := pki.APIServerSpec(cl.Network.ServiceCIDR, cl.Network.DNSDomain, hosts, cl.Endpoint(), cl.Certificates.ExtraSANs, s.validity)
		for i := range masters {
			if err := add(resources.CertAPIServer, &masters[i], cluster, spec, err); err != nil {
				return nil, err
			}
		}
		clients := []clientOf{
			{resources.CertAPIServerKubeletClient, cluster, pki.APIServerKubeletClientSpec},
			{resources.CertAPIServerEtcdClient, etcd, pki.APIServerEtcdClientSpec},
			{resources.CertFrontProxyClient, front, pki.FrontProxyClientSpec},
			{resources.CertAdmin, cluster, pki.AdminSpec},
			{resources.CertControllerManager, cluster, pki.ControllerManagerSpec},
			{resources.CertScheduler, cluster, pki.SchedulerSpec},
		}
		if len(nodes) > 0 {
			clients = append(clients, clientOf{resources.CertKubeProxy, cluster, pki.KubeProxySpec},
				clientOf{resources.CertFlannel, cluster, pki.FlannelSpec})
		}
		for _, cc := range clients {
			if err := add(cc.name, nil, cc.issuer, cc.spec(s.validity), nil); err != nil {
				return nil, err
			}
		}
		for _, cc := range cl.Certificates.Clients {
			d, err := c.clientCert(cc, cluster, s)
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		}
		for i, n := range nodes {
			spec, err := pki.KubeletSpec(pki.Host{Name: n.Name, Address: n.Address}, s.validity)
			if err := add(resources.CertKubelet, &nodes[i], cluster, spec, err); err != nil {
				return nil, err
			}
		}
	}
	for i, e := range etcds {
		h := pki.Host{Name: e.Name, Address: e.Address}
		spec, err := pki.EtcdServerSpec(h, s.validity)
		if err := add(resources.CertEtcdServer, &etcds[i], etcd, spec, err); err != nil {
			return nil, err
		}
		spec, err = pki.EtcdPeerSpec(h, s.validity)
		if err := add(resources.CertEtcdPeer, &etcds[i], etcd, spec, err); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// clientOf is one of the control plane's client certificates: its name,
// the CA that signs it and its spec for a validity.
type clientOf struct {
	name, issuer string
	spec         func(time.Duration) pki.CertSpec
}

// certAttrs are a certificate's desired attributes: its issuer (the CA's
// certificate and key arrive through Refs) and the normalized spec.
func certAttrs(issuer string, spec pki.CertSpec, s certSettings) resources.Attrs {
	return resources.Attrs{
		certIssuer:      issuer,
		certCA:          resources.Ref{Addr: issuer, Attr: pkiCert},
		certCAKey:       resources.Ref{Addr: issuer, Attr: pkiKey},
		certCommonName:  spec.CommonName,
		certOrg:         stringsAttr(spec.Organization),
		certDNSNames:    stringsAttr(spec.DNSNames),
		certIPs:         stringsAttr(spec.IPs),
		certServer:      spec.Server,
		certClient:      spec.Client,
		certValidity:    durationText(s.validity),
		certRenewBefore: durationText(s.renewBefore),
	}
}

// stringsAttr is a list attribute; empty is [] (never null), so "none"
// compares equal to "none" after a trip through the state file.
func stringsAttr(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func stringsOf(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// certSpecOf reads the spec back from a certificate's attributes.
func certSpecOf(addr string, a resources.Attrs) (pki.CertSpec, error) {
	validity, err := parseDurationAttr(addr, a, certValidity)
	if err != nil {
		return pki.CertSpec{}, err
	}
	server, _ := a[certServer].(bool)
	client, _ := a[certClient].(bool)
	return pki.CertSpec{
		CommonName:   resources.AttrString(a[certCommonName]),
		Organization: stringsOf(a[certOrg]),
		DNSNames:     stringsOf(a[certDNSNames]),
		IPs:          stringsOf(a[certIPs]),
		Server:       server,
		Client:       client,
		Validity:     validity,
	}, nil
}
