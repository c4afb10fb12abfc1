package certs

import (
	"time"

	"github.com/eggo-project/eggo/resources"
)

// PKI is the pki kind: the cluster's certificate authorities and its
// service-account signing key. It is local: nothing is written to a host,
// and the state (where keys are encrypted) is its only store. Other kinds
// read its values through Refs (PKIAddr(PKIClusterCA) + "#cert").
type PKI struct {
	now func() time.Time // the clock expiry is judged and CAs are issued by
}

// NewPKI returns the pki kind.
func NewPKI() *PKI { return &PKI{now: time.Now} }

// Name is "pki".
func (p *PKI) Name() string { return "pki" }

// The values of the type attribute.
const (
	pkiTypeCA             = "ca"
	pkiTypeServiceAccount = "service-account"
)

// Attribute names of the pki kind.
const (
	pkiType        = "type"
	pkiCommonName  = "common_name"
	pkiValidity    = "validity"
	pkiRenewBefore = "renew_before"
	pkiCert        = "cert"
	pkiPublicKey   = "public_key"
	pkiKey         = "key"
	pkiNotAfter    = "not_after"
)

// pkiCAs are the certificate authorities, by resource name, with the
// common names kubeadm gives them (tools and people recognise them).
var pkiCAs = []struct{ name, commonName string }{
	{resources.PKIClusterCA, "kubernetes"},
	{resources.PKIEtcdCA, "etcd-ca"},
	{resources.PKIFrontProxyCA, "front-proxy-ca"},
}

// Schema describes the pki attributes.
func (p *PKI) Schema() resources.Schema {
	return resources.Schema{Attributes: map[string]resources.AttrSchema{
		pkiType:        {Description: `"ca" or "service-account"`, ForceNew: true},
		pkiCommonName:  {Description: "the CA's common name", ForceNew: true},
		pkiValidity:    {Description: "lifetime of the CA from issue (ca_validity); a change applies when the CA is next replaced"},
		pkiRenewBefore: {Description: "a CA this close to expiry is replaced (and every certificate it signed with it)"},
		pkiCert:        {Description: "the CA certificate (PEM)", Computed: true},
		pkiPublicKey:   {Description: "the service-account public key (PEM), what token verifiers are given", Computed: true},
		pkiKey:         {Description: "the private key (PEM)", Computed: true, Sensitive: true},
		pkiNotAfter:    {Description: "when the CA expires (RFC 3339, UTC)", Computed: true},
	}}
}

// computedOf are the attributes Create sets for a pki type.
func pkiComputedOf(typ string) []string {
	if typ == pkiTypeServiceAccount {
		return []string{pkiPublicKey, pkiKey}
	}
	return []string{pkiCert, pkiKey, pkiNotAfter}
}

// Expand declares the three CAs and the service-account key for a cluster
// that has a master or an etcd node; a cluster of other nodes only has no
// PKI.
func (p *PKI) Expand(c *resources.Cluster) ([]resources.Desired, error) {
	if len(c.NodesWithRole("master")) == 0 && len(c.NodesWithRole("etcd")) == 0 {
		return nil, nil
	}
	s := certSettingsOf(c)
	out := make([]resources.Desired, 0, len(pkiCAs)+1)
	for _, ca := range pkiCAs {
		out = append(out, resources.Desired{
			Addr: resources.PKIAddr(ca.name), Kind: p.Name(), Source: c.Source, Range: c.Ranges.Block,
			Attrs: resources.Attrs{
				pkiType:        pkiTypeCA,
				pkiCommonName:  ca.commonName,
				pkiValidity:    durationText(s.caValidity),
				pkiRenewBefore: durationText(s.renewBefore),
			},
		})
	}
	// The service-account key does not expire: it has no validity.
	out = append(out, resources.Desired{
		Addr: resources.PKIAddr(resources.PKIServiceAccount), Kind: p.Name(), Source: c.Source, Range: c.Ranges.Block,
		Attrs: resources.Attrs{pkiType: pkiTypeServiceAccount},
	})
	return out, nil
}
