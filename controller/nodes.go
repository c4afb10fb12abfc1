package controller

import (
	"context"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// recordNodes copies the nodes' state the finished Job published (from
// eggo's state, after its run, whether it succeeded or not) into the
// status. A Job that published none (it died first) leaves the last known
// nodes as they were.
func (r *Reconciler) recordNodes(ctx context.Context, c *v1alpha1.EggoCluster, job string) {
	var cm corev1.ConfigMap
	key := client.ObjectKey{Namespace: c.Namespace, Name: v1alpha1.NodesConfigMapName(c.Name)}
	if err := r.APIReader.Get(ctx, key, &cm); err != nil || cm.Labels[v1alpha1.LabelJob] != job {
		return
	}
	var nodes []v1alpha1.NodeStatus
	if json.Unmarshal([]byte(cm.Data[v1alpha1.NodesKey]), &nodes) == nil {
		c.Status.Nodes = nodes
	}
}
