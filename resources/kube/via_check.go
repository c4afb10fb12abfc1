package kube

import (
	"fmt"
	"path"

	"github.com/eggo-project/eggo/resources"
)

// CheckVia refuses the master a record says eggo talks to the API through
// (attribute name: {node, address, connection, kubeconfig}) unless it is
// what eggo writes: a host reached as resources.CheckTargetAttrs allows,
// and the admin kubeconfig eggo writes on its masters,
// CONFIG_DIR/admin.conf (AdminKubeconfigPath). kubectl runs as root with
// that kubeconfig when a Node is drained or an add-on's objects deleted,
// and a kubeconfig can name a program for kubectl to run (a credential
// plugin): a recorded path to any other file would be a command.
func CheckVia(a resources.Attrs, name string) error {
	v, ok := a[name]
	if !ok {
		return nil
	}
	via, isMap := v.(map[string]any)
	if !isMap {
		return fmt.Errorf("%s is not an object", name)
	}
	if n, ok := via["node"]; ok {
		if _, isString := n.(string); !isString {
			return fmt.Errorf("%s.node is not a string", name)
		}
	}
	if err := resources.CheckTargetAttrs(via); err != nil {
		return fmt.Errorf("%s.%w", name, err)
	}
	k, ok := via["kubeconfig"]
	if !ok {
		return nil // older records: KubectlVia's default
	}
	p, isString := k.(string)
	if !isString {
		return fmt.Errorf("%s.kubeconfig is not a path", name)
	}
	if err := resources.CheckPath(p); err != nil {
		return fmt.Errorf("%s.kubeconfig: %w", name, err)
	}
	if path.Base(p) != adminKubeconfigName || path.Dir(p) == "/" {
		return fmt.Errorf("%s.kubeconfig: %s is not CONFIG_DIR/%s, the admin kubeconfig eggo writes on its masters", name, p, adminKubeconfigName)
	}
	return nil
}

// CheckRecord refuses a Node's record whose master is not one eggo
// records (CheckVia): its delete drains the Node through that master.
func (K8sNode) CheckRecord(o resources.Object) error {
	if err := resources.CheckTargetAttrs(o.Attrs); err != nil {
		return err
	}
	if v, ok := o.Attrs[k8sNodeName]; ok {
		if _, isString := v.(string); !isString {
			return fmt.Errorf("%s is not a string", k8sNodeName)
		}
	}
	return CheckVia(o.Attrs, k8sNodeVia)
}
