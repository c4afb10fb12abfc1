package config

import (
	"github.com/hashicorp/hcl/v2"
)

// decodeKubeBackend reads backend "kubernetes". The cluster's name goes
// into the names of its Secrets and Lease and into a label value, so it
// must be a DNS label here, where a cluster named otherwise can use the
// other backends.
func (l *loader) decodeKubeBackend(b *hcl.Block, be *Backend, cluster string) (*Backend, hcl.Diagnostics) {
	dec, attrs, diags := l.blockDecoder(b, kubeBackendSchema)
	if dec == nil {
		return nil, diags
	}
	if p := dec.strPtr(attrs, "kubeconfig"); p != nil {
		be.Kubeconfig = l.pathAttr(dec, attrs["kubeconfig"], *p)
	}
	be.Context = dec.str(attrs, "context", "")
	if ns := dec.strPtr(attrs, "namespace"); ns != nil {
		be.Namespace = *ns
		if !isDNSLabel(*ns) {
			dec.errorf(attrs["namespace"].Expr.Range(), "Invalid namespace",
				"namespace = %s is not a Kubernetes namespace name: lowercase letters, digits and '-', at most 63.", dec.show(attrs["namespace"], *ns))
		}
	}
	if !isDNSLabel(cluster) {
		dec.errorf(b.DefRange, "Cluster name unusable in Kubernetes",
			"The kubernetes backend names its Secrets and Lease after the cluster (eggo-state-NAME), so the cluster name must be a DNS label: lowercase letters, digits and '-', at most 63; %s is not.", quoted(cluster))
	}
	decodeLock(dec, attrs, be)
	return be, dec.diags
}
