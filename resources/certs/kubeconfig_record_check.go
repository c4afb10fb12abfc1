package certs

import (
	"fmt"

	"github.com/eggo-project/eggo/resources"
)

// CheckRecord refuses a kubeconfig record whose file is not the one eggo
// writes for the record's cluster (and client): CLUSTER.kubeconfig or
// CLUSTER-CLIENT.kubeconfig beside the state (kubeconfigPath). A delete, and an update that renames the cluster,
// remove the recorded file from the operator's machine when its content
// matches the recorded sha256, which whoever wrote the state chose too.
func (k *Kubeconfig) CheckRecord(o resources.Object) error {
	if err := resources.CheckTargetAttrs(o.Attrs); err != nil {
		return err
	}
	v, ok := o.Attrs[kcPath]
	if !ok {
		return nil
	}
	p, isString := v.(string)
	if !isString {
		return fmt.Errorf("%s is not a string", kcPath)
	}
	if p == "" {
		return nil // nothing written yet
	}
	cluster := resources.AttrString(o.Attrs[kcCluster])
	if client := resources.AttrString(o.Attrs[kcClient]); client != "" {
		if want, err := kubeconfigPath(cluster, client); err != nil || p != want {
			return fmt.Errorf("%s %q is not the file eggo writes beside the state for client %q of cluster %q (CLUSTER-CLIENT%s): a delete removes the recorded file",
				kcPath, p, client, cluster, kubeconfigSuffix)
		}
		return nil
	}
	if want, err := kubeconfigPath(cluster, ""); err != nil || p != want {
		return fmt.Errorf("%s %q is not the file eggo writes beside the state for cluster %q (CLUSTER%s): a delete removes the recorded file", kcPath, p, cluster, kubeconfigSuffix)
	}
	return nil
}
