package certs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/pki"
)

// Kubeconfig is the kubeconfig kind: the operator's admin kubeconfig,
// written next to the state file as <cluster>.kubeconfig, so that after
// `eggo apply` `kubectl --kubeconfig demo.kubeconfig get nodes` works, and
// one per client of the certificates block, <cluster>-<name>.kubeconfig
// (client.go). The file holds a client key: keep it out of git (it is
// 0600 and is never recorded in state; only its sha256 is).
type Kubeconfig struct{}

// NewKubeconfig returns the kubeconfig kind.
func NewKubeconfig() *Kubeconfig { return &Kubeconfig{} }

// Name is "kubeconfig".
func (k *Kubeconfig) Name() string { return "kubeconfig" }

// KubeconfigAdminAddr is the address of the operator's kubeconfig.
const KubeconfigAdminAddr = "kubeconfig.admin"

// kubeconfigSuffix names the file: <cluster>.kubeconfig beside the state.
const kubeconfigSuffix = ".kubeconfig"

// Attribute names of the kubeconfig kind.
const (
	kcCluster = "cluster"
	kcClient  = "client"
	kcServer  = "server"
	kcUser    = "user"
	kcCA      = "ca"
	kcCert    = "cert"
	kcKey     = "key"
	kcPath    = "path"
	kcSHA256  = "sha256"
	kcDrift   = "drift"
)

// Values of the drift attribute, set by Read.
const (
	kcDriftMissing  = "missing"
	kcDriftModified = "modified"
)

// Schema describes the kubeconfig attributes.
func (k *Kubeconfig) Schema() resources.Schema {
	return resources.Schema{Attributes: map[string]resources.AttrSchema{
		kcCluster: {Description: "cluster name: the kubeconfig's cluster and the file's name"},
		kcClient: {Description: "the certificates block's client it is for (kubeconfig.client[NAME], file <cluster>-NAME.kubeconfig); " +
			"absent for kubeconfig.admin"},
		kcServer: {Description: "the apiserver URL clients use"},
		kcUser:   {Description: "the user (the client certificate's common name)"},
		kcCA:     {Description: "the cluster CA's certificate (PEM)"},
		kcCert:   {Description: "the client certificate (PEM): cert.admin's, or cert.client[NAME]'s"},
		kcKey:    {Description: "the client key; written to the file, never recorded", Sensitive: true},
		kcPath: {Description: "the file, relative to the state file's directory (<cluster>.kubeconfig, <cluster>-NAME.kubeconfig), " +
			"so the state reads the same wherever it is checked out", Computed: true},
		kcSHA256: {Description: "sha256 of the content eggo wrote; Delete removes the file only while it matches", Computed: true},
		kcDrift:  {Description: `"missing" or "modified" when a refresh found the file changed outside eggo`, Computed: true},
	}}
}

// Expand declares the admin kubeconfig of a cluster that has a master,
// and each client's.
func (k *Kubeconfig) Expand(c *resources.Cluster) ([]resources.Desired, error) {
	if len(c.NodesWithRole("master")) == 0 {
		return nil, nil
	}
	if _, err := kubeconfigPath(c.Name, ""); err != nil {
		return nil, resources.Blame(c.At(""), "Invalid cluster name", "%s: %v", KubeconfigAdminAddr, err)
	}
	admin := resources.CertAddr(resources.CertAdmin, "")
	out := make([]resources.Desired, 1, 1+len(c.Certificates.Clients))
	out[0] = resources.Desired{
		Addr: KubeconfigAdminAddr, Kind: k.Name(), Source: c.Source, Range: c.Ranges.Block,
		Attrs: resources.Attrs{
			kcCluster: c.Name,
			kcServer:  c.APIServerURL(),
			kcUser:    pki.AdminSpec(0).CommonName,
			kcCA:      resources.Ref{Addr: resources.PKIAddr(resources.PKIClusterCA), Attr: pkiCert},
			kcCert:    resources.Ref{Addr: admin, Attr: certCert},
			kcKey:     resources.Ref{Addr: admin, Attr: certKey},
		},
	}
	for _, cc := range c.Certificates.Clients {
		d, err := k.clientKubeconfig(c, cc)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// kubeconfigPath is the file's path relative to the state's directory:
// CLUSTER.kubeconfig, or CLUSTER-CLIENT.kubeconfig for a client's.
func kubeconfigPath(cluster, client string) (string, error) {
	if cluster == "" || cluster == "." || cluster == ".." || strings.ContainsAny(cluster, `/\`) {
		return "", fmt.Errorf("cluster name %q cannot name a file (%s%s)", cluster, cluster, kubeconfigSuffix)
	}
	if client == "" {
		return cluster + kubeconfigSuffix, nil
	}
	if strings.ContainsAny(client, `/\`) || client == "." || client == ".." {
		return "", fmt.Errorf("client name %q cannot name a file (%s-%s%s)", client, cluster, client, kubeconfigSuffix)
	}
	return cluster + "-" + client + kubeconfigSuffix, nil
}

// kubeconfigPathOf is the file of a kubeconfig's attributes.
func kubeconfigPathOf(a resources.Attrs) (string, error) {
	return kubeconfigPath(resources.AttrString(a[kcCluster]), resources.AttrString(a[kcClient]))
}

// kubeconfigContent is the file eggo writes for these attributes, or false
// while an input is known only after apply.
func kubeconfigContent(a resources.Attrs) (string, bool) {
	ca, ok1 := a[kcCA].(string)
	cert, ok2 := a[kcCert].(string)
	key, ok3 := a[kcKey].(string)
	if !ok1 || !ok2 || !ok3 {
		return "", false
	}
	return pki.Kubeconfig(resources.AttrString(a[kcCluster]), resources.AttrString(a[kcServer]), ca, resources.AttrString(a[kcUser]), cert, key), true
}

func sha256Text(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// kubeconfigRecordable is what a record holds: the inputs but the key.
func kubeconfigRecordable(desired resources.Attrs) resources.Attrs {
	out := make(resources.Attrs, len(desired)+2)
	for k, v := range desired {
		if k != kcKey {
			out[k] = v
		}
	}
	return out
}

// fullPath resolves a recorded path against the run's state directory.
func kubeconfigFullPath(rc *resources.RunContext, rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(rc.WorkDir, rel)
}

func kubeconfigDriftReason(path, drift string) resources.Reason {
	if drift == kcDriftMissing {
		return resources.Reason{Code: resources.ReasonDrift, Detail: path + " is missing"}
	}
	return resources.Reason{Code: resources.ReasonDrift, Detail: path + " was modified outside eggo"}
}
