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
// `eggo apply` `kubectl --kubeconfig demo.kubeconfig get nodes` works. The
// file holds the admin key: keep it out of git (it is 0600 and is never
// recorded in state; only its sha256 is).
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
		kcServer:  {Description: "the apiserver URL clients use"},
		kcUser:    {Description: "the user (the admin certificate's common name)"},
		kcCA:      {Description: "the cluster CA's certificate (PEM)"},
		kcCert:    {Description: "the admin client certificate (PEM)"},
		kcKey:     {Description: "the admin client key; written to the file, never recorded", Sensitive: true},
		kcPath: {Description: "the file, relative to the state file's directory (<cluster>.kubeconfig), " +
			"so the state reads the same wherever it is checked out", Computed: true},
		kcSHA256: {Description: "sha256 of the content eggo wrote; Delete removes the file only while it matches", Computed: true},
		kcDrift:  {Description: `"missing" or "modified" when a refresh found the file changed outside eggo`, Computed: true},
	}}
}

// Expand declares the admin kubeconfig of a cluster that has a master.
func (k *Kubeconfig) Expand(c *resources.Cluster) ([]resources.Desired, error) {
	if len(c.NodesWithRole("master")) == 0 {
		return nil, nil
	}
	if _, err := kubeconfigPath(c.Name); err != nil {
		return nil, resources.Blame(c.At(""), "Invalid cluster name", "%s: %v", KubeconfigAdminAddr, err)
	}
	admin := resources.CertAddr(resources.CertAdmin, "")
	return []resources.Desired{{
		Addr: KubeconfigAdminAddr, Kind: k.Name(), Source: c.Source, Range: c.Ranges.Block,
		Attrs: resources.Attrs{
			kcCluster: c.Name,
			kcServer:  c.APIServerURL(),
			kcUser:    pki.AdminSpec(0).CommonName,
			kcCA:      resources.Ref{Addr: resources.PKIAddr(resources.PKIClusterCA), Attr: pkiCert},
			kcCert:    resources.Ref{Addr: admin, Attr: certCert},
			kcKey:     resources.Ref{Addr: admin, Attr: certKey},
		},
	}}, nil
}

// kubeconfigPath is the file's path relative to the state's directory.
func kubeconfigPath(cluster string) (string, error) {
	if cluster == "" || cluster == "." || cluster == ".." || strings.ContainsAny(cluster, `/\`) {
		return "", fmt.Errorf("cluster name %q cannot name a file (%s%s)", cluster, cluster, kubeconfigSuffix)
	}
	return cluster + kubeconfigSuffix, nil
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
