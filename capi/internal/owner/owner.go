// Package owner finds the Cluster API objects a provider object hangs
// from: its owning Machine and that Machine's Cluster.
package owner

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// MachineName is the name of obj's owning Machine (an ownerReference of
// kind Machine in group cluster.x-k8s.io), or "" if it has none yet.
func MachineName(obj client.Object) string {
	for _, ref := range obj.GetOwnerReferences() {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err == nil && ref.Kind == "Machine" && gv.Group == clusterv1.GroupVersion.Group {
			return ref.Name
		}
	}
	return ""
}

// Machine gets obj's owning Machine; nil (and no error) when obj has no
// Machine owner yet or the Machine is not found.
func Machine(ctx context.Context, c client.Reader, obj client.Object) (*clusterv1.Machine, error) {
	name := MachineName(obj)
	if name == "" {
		return nil, nil
	}
	m := &clusterv1.Machine{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}, m); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return m, nil
}

// ClusterName is the Machine's Cluster: its label
// cluster.x-k8s.io/cluster-name, else spec.clusterName.
func ClusterName(m *clusterv1.Machine) string {
	if name := m.Labels[clusterv1.ClusterNameLabel]; name != "" {
		return name
	}
	return m.Spec.ClusterName
}

// Cluster gets the Machine's Cluster; nil (and no error) when not found.
func Cluster(ctx context.Context, c client.Reader, m *clusterv1.Machine) (*clusterv1.Cluster, error) {
	name := ClusterName(m)
	if name == "" {
		return nil, nil
	}
	cl := &clusterv1.Cluster{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: name}, cl); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return cl, nil
}
