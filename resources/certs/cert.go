package certs

import (
	"sort"
	"sync"
	"time"

	"github.com/eggo-project/eggo/resources"
)

// Cert is the cert kind: one leaf certificate and its key, issued by one
// of the pki CAs. Like pki it is local: the state is its only store, and
// the kinds that put certificates on hosts read them through Refs
// (CertAddr(CertAdmin, "") + "#cert").
type Cert struct {
	now func() time.Time // the clock expiry is judged and certificates are issued by
}

// NewCert returns the cert kind.
func NewCert() *Cert { return &Cert{now: time.Now} }

// Name is "cert".
func (c *Cert) Name() string { return "cert" }

// Attribute names of the cert kind.
const (
	certIssuer      = "issuer"
	certCA          = "ca"
	certCAKey       = "ca_key"
	certCommonName  = "common_name"
	certOrg         = "organization"
	certDNSNames    = "dns_names"
	certIPs         = "ip_addresses"
	certServer      = "server"
	certClient      = "client"
	certValidity    = "validity"
	certRenewBefore = "renew_before"
	certCert        = "cert"
	certKey         = "key"
	certNotAfter    = "not_after"
	certSerial      = "serial"
)

// certComputed are the attributes Create sets.
var certComputed = []string{certCert, certKey, certNotAfter, certSerial}

// Schema describes the cert attributes. ca_key is an input only: it is
// never recorded, so the CA's key lives in the CA's record alone rather
// than in a copy per certificate.
func (c *Cert) Schema() resources.Schema { return certSchema() }

// plannedCertSchema is certSchema made once, for Plan's reading only: a
// plan asks it of every certificate, and made a map of every attribute's
// schema for each.
var plannedCertSchema = sync.OnceValue(certSchema)

func certSchema() resources.Schema {
	return resources.Schema{Attributes: map[string]resources.AttrSchema{
		certIssuer:      {Description: "address of the CA that signs it, e.g. pki.cluster_ca"},
		certCA:          {Description: "the signing CA's certificate (PEM); a new CA replaces the certificate"},
		certCAKey:       {Description: "the signing CA's private key; used to sign, never recorded", Sensitive: true},
		certCommonName:  {Description: "subject common name (the user name Kubernetes sees)"},
		certOrg:         {Description: "subject organizations (the groups Kubernetes sees)"},
		certDNSNames:    {Description: "DNS subject alternative names, sorted"},
		certIPs:         {Description: "IP subject alternative names, sorted"},
		certServer:      {Description: "usable as a TLS server certificate"},
		certClient:      {Description: "usable as a TLS client certificate"},
		certValidity:    {Description: "lifetime from issue (validity); a change applies at the next renewal"},
		certRenewBefore: {Description: "a certificate this close to expiry is renewed"},
		certCert:        {Description: "the certificate (PEM)", Computed: true},
		certKey:         {Description: "the private key (PEM)", Computed: true, Sensitive: true},
		certNotAfter:    {Description: "when the certificate expires (RFC 3339, UTC)", Computed: true},
		certSerial:      {Description: "serial number (hex)", Computed: true},
	}}
}

// recordChanges is resources.ChangedAttrs(schema, prior,
// certRecordable(desired)) without making the record: a plan of a
// thousand certificates that keep theirs made one each to compare and
// drop.
func recordChanges(schema resources.Schema, prior, desired resources.Attrs) []string {
	var changed []string
	check := func(name string) {
		if schema.Attributes[name].Computed {
			return
		}
		after := desired[name]
		if name == certCAKey {
			after = nil // not in a record
		}
		if !resources.Equal(prior[name], after) {
			changed = append(changed, name)
		}
	}
	for name := range prior {
		check(name)
	}
	for name := range desired {
		if _, seen := prior[name]; !seen && name != certCAKey {
			check(name)
		}
	}
	sort.Strings(changed)
	return changed
}

// recordable is desired without ca_key: what a record holds of the inputs.
func certRecordable(desired resources.Attrs) resources.Attrs {
	out := make(resources.Attrs, len(desired)+len(certComputed))
	for k, v := range desired {
		if k != certCAKey {
			out[k] = v
		}
	}
	return out
}
