package infrastructure

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/internal/owner"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// What eggo says of a machine's node. The control plane renders each
// ready Machine as an eggo node named as the Machine, into the
// EggoCluster named after the Cluster (in its namespace); after every
// run the GitOps controller publishes status.nodes: "Applied (N
// resources)" once every resource of a node is recorded, "Pending (k of
// N resources pending)" while a run left some undone. A node it does not
// list is not in eggo's state.

// appliedPrefix starts the state of a node eggo applied in full.
const appliedPrefix = "Applied"

// nodeName is the eggo node of m: its Machine's name (m's when it has no
// Machine owner).
func nodeName(m *infrav1.SSHMachine) string {
	if name := owner.MachineName(m); name != "" {
		return name
	}
	return m.Name
}

// eggoCluster reads, live, the EggoCluster of the Cluster named cluster
// in ns: nil (and no error) when there is none.
func eggoCluster(ctx context.Context, r client.Reader, ns, cluster string) (*eggov1.EggoCluster, error) {
	if cluster == "" {
		return nil, nil
	}
	ec := &eggov1.EggoCluster{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: cluster}, ec); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("the EggoCluster %s/%s: %w", ns, cluster, err)
	}
	return ec, nil
}

// nodeState is the state ec's status.nodes gives node, and whether it
// lists it at all.
func nodeState(ec *eggov1.EggoCluster, node string) (string, bool) {
	if ec == nil {
		return "", false
	}
	for _, n := range ec.Status.Nodes {
		if n.Name == node {
			return n.State, true
		}
	}
	return "", false
}

// joined says whether eggo applied m's node in full (the EggoCluster of
// cluster lists it Applied), with the NodeJoined condition that says
// so or what is awaited.
func (r *SSHMachineReconciler) joined(ctx context.Context, m *infrav1.SSHMachine, cluster string) (bool, metav1.Condition, error) {
	node := nodeName(m)
	cond := metav1.Condition{Type: infrav1.SSHMachineNodeJoinedCondition, Status: metav1.ConditionFalse,
		Reason: WaitingForNodeJoinedReason}
	ec, err := eggoCluster(ctx, r.APIReader, m.Namespace, cluster)
	if err != nil {
		return false, cond, err
	}
	state, listed := nodeState(ec, node)
	switch {
	case ec == nil:
		cond.Message = fmt.Sprintf("waiting for the EggoCluster %s", cluster)
	case !listed:
		cond.Message = fmt.Sprintf("node %s is not in the EggoCluster %s's state yet", node, cluster)
	case !strings.HasPrefix(state, appliedPrefix):
		cond.Message = fmt.Sprintf("node %s is %s in the EggoCluster %s", node, state, cluster)
	default:
		cond.Status, cond.Reason = metav1.ConditionTrue, NodeJoinedReason
		cond.Message = fmt.Sprintf("eggo applied node %s (%s) in the EggoCluster %s", node, state, cluster)
		return true, cond, nil
	}
	return false, cond, nil
}

// provisioned says whether m's infrastructure was once provisioned
// (which, by the contract, it stays).
func provisioned(m *infrav1.SSHMachine) bool {
	p := m.Status.Initialization.Provisioned
	return p != nil && *p
}

// nodesChanged passes an EggoCluster's creation and deletion, and an
// update only when its status.nodes, status.activeJob, deletion or
// deletionPolicy changed: all that the SSHMachines and SSHClusters read
// of it (an SSHMachine records how it is deleted while it can see it).
var nodesChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*eggov1.EggoCluster)
		n, ok2 := e.ObjectNew.(*eggov1.EggoCluster)
		if !ok1 || !ok2 {
			return true
		}
		return !equalNodes(o.Status.Nodes, n.Status.Nodes) || o.Status.ActiveJob != n.Status.ActiveJob ||
			!n.DeletionTimestamp.Equal(o.DeletionTimestamp) || o.Spec.DeletionPolicy != n.Spec.DeletionPolicy ||
			o.Status.ActiveJobPhase != n.Status.ActiveJobPhase
	},
}

func equalNodes(a, b []eggov1.NodeStatus) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// clusterName is m's Cluster: the known one, else m's cluster-name label.
func clusterName(m *infrav1.SSHMachine, cluster *clusterv1.Cluster) string {
	if cluster != nil {
		return cluster.Name
	}
	return m.Labels[clusterv1.ClusterNameLabel]
}
