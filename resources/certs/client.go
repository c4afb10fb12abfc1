package certs

import (
	"fmt"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/pki"
)

// The certificates block's clients (resources.ClientCert): each is a
// client certificate of the cluster CA, cert.client["NAME"], with a life
// of its own, and a kubeconfig that holds it, kubeconfig.client["NAME"],
// written beside the state as CLUSTER-NAME.kubeconfig. The kubeconfig
// refers to the certificate and its key (Refs), so a renewed certificate
// rewrites the file in the same apply.

// ClientCommonNamePrefix starts a client's user name: its certificate's
// CN is "eggo:client:NAME".
const ClientCommonNamePrefix = "eggo:client:"

// defaultClientValidity is a client's validity when none is set: 30 days,
// for a certificate meant to be renewed by each apply that finds it
// within renew_before of expiry.
const defaultClientValidity = 720 * time.Hour

// KubeconfigClientAddr is the address of a client's kubeconfig:
// kubeconfig.client["capi"].
func KubeconfigClientAddr(name string) string {
	return fmt.Sprintf("kubeconfig.client[%q]", name)
}

// clientSettings are a client's validity and renew_before, defaults
// applied: 720h, and a third of the validity.
func clientSettings(cc resources.ClientCert) (validity, renewBefore time.Duration) {
	validity, renewBefore = cc.Validity, cc.RenewBefore
	if validity <= 0 {
		validity = defaultClientValidity
	}
	if renewBefore <= 0 {
		renewBefore = validity / 3
	}
	return validity, renewBefore
}

// ClientSpec is a client's certificate: CN eggo:client:NAME, its groups
// as the organizations, usable as a client only.
func ClientSpec(cc resources.ClientCert) pki.CertSpec {
	validity, _ := clientSettings(cc)
	return pki.CertSpec{CommonName: ClientCommonNamePrefix + cc.Name, Organization: cc.Groups, Client: true, Validity: validity}
}

// clientCert is a client's certificate, signed by issuer (the cluster CA)
// with the client's own validity and renew_before.
func (c *Cert) clientCert(cc resources.ClientCert, issuer string, s certSettings) (resources.Desired, error) {
	d := resources.Desired{Addr: resources.CertAddr(resources.CertClient, cc.Name), Kind: c.Name(), Source: cc.Source, Range: cc.Range}
	spec, err := ClientSpec(cc).Normalize()
	if err != nil {
		return d, resources.Blame(cc.Where(), "Invalid certificate", "%s: %v", d.Addr, err)
	}
	s.validity, s.renewBefore = clientSettings(cc)
	d.Attrs = certAttrs(issuer, spec, s)
	return d, nil
}

// clientKubeconfig is a client's kubeconfig: the admin's server and CA,
// the client's certificate and key.
func (k *Kubeconfig) clientKubeconfig(c *resources.Cluster, cc resources.ClientCert) (resources.Desired, error) {
	addr := KubeconfigClientAddr(cc.Name)
	if _, err := kubeconfigPath(c.Name, cc.Name); err != nil {
		return resources.Desired{}, resources.Blame(cc.Where(), "Invalid client name", "%s: %v", addr, err)
	}
	cert := resources.CertAddr(resources.CertClient, cc.Name)
	return resources.Desired{
		Addr: addr, Kind: k.Name(), Source: cc.Source, Range: cc.Range,
		Attrs: resources.Attrs{
			kcCluster: c.Name,
			kcClient:  cc.Name,
			kcServer:  c.APIServerURL(),
			kcUser:    ClientCommonNamePrefix + cc.Name,
			kcCA:      resources.Ref{Addr: resources.PKIAddr(resources.PKIClusterCA), Attr: pkiCert},
			kcCert:    resources.Ref{Addr: cert, Attr: certCert},
			kcKey:     resources.Ref{Addr: cert, Attr: certKey},
		},
	}, nil
}
