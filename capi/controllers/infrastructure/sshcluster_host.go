package infrastructure

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
)

// apiServerPort is where a master's kube-apiserver serves: the endpoint
// of a cluster whose endpoint is its first master's host.
const apiServerPort = 6443

// reconcileHost claims the host sel chooses for purpose (the discipline
// of host.go: the claim carries the Cluster, no machine), then sets the
// endpoint to its address and port (only while the SSHCluster has none:
// core copies it to the Cluster once) and provisioned.
func (r *SSHClusterReconciler) reconcileHost(ctx context.Context, sc *infrav1.SSHCluster, cluster *clusterv1.Cluster, purpose infrav1.ClaimPurpose, sel infrav1.HostSelector, port int32, pc metav1.Condition) (ctrl.Result, error) {
	cl := claimant{client: r.Client, reader: r.APIReader, obj: sc,
		holds: func(c *infrav1.SSHHostClaim) bool { return c.ClusterUID == string(cluster.UID) && c.Purpose == purpose },
		take: func(h *infrav1.SSHHost) bool {
			if !claimable(h, sel) {
				return false
			}
			h.Spec.ClaimRef = &infrav1.SSHHostClaim{ClusterName: cluster.Name, ClusterUID: string(cluster.UID), Purpose: purpose}
			return true
		}}
	name := sc.Annotations[infrav1.HostAnnotation]
	if name == "" {
		chosen, err := chooseFree(ctx, r.APIReader, sc.Namespace, sel)
		if err != nil {
			return ctrl.Result{}, err
		}
		if chosen == "" {
			res, err := r.status(ctx, sc, false, append(sshClusterNotReady(NoHostAvailableReason,
				fmt.Sprintf("no Available SSHHost of pool %q matches", sel.Pool)), pc)...)
			if res.IsZero() && err == nil {
				res.RequeueAfter = noHostRetry
			}
			return res, err
		}
		if res, err := cl.record(ctx, chosen); err != nil || !res.IsZero() {
			return res, err
		}
		name = chosen
	}
	host, res, err := cl.claim(ctx, name)
	if host == nil || err != nil {
		return res, err
	}
	msg := fmt.Sprintf("claimed SSHHost %s (%s)", host.Name, purpose)
	// Claimed once; a machine on the endpoint host moves it afterwards.
	if host.Status.Phase == "" || host.Status.Phase == infrav1.SSHHostAvailable {
		if res, err := setPhase(ctx, r.Client, host, infrav1.SSHHostClaimed, metav1.Condition{Type: infrav1.SSHHostClaimedCondition,
			Status: metav1.ConditionTrue, Reason: HostClaimedReason,
			Message: fmt.Sprintf("claimed by SSHCluster %s of Cluster %s (%s)", sc.Name, cluster.Name, purpose)}); err != nil || !res.IsZero() {
			return res, err
		}
	}
	if sc.Spec.ControlPlaneEndpoint.Host == "" {
		sc.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: host.Spec.Address, Port: port}
		if err := r.Client.Update(ctx, sc); err != nil {
			return requeueOnConflict(err)
		}
	}
	return r.provisioned(ctx, sc, HostClaimedReason, msg, pc)
}

// reconcileDelete lets the SSHCluster go once the host it claimed is
// released.
//
// The load balancer host is released once eggo no longer has the load
// balancer node: the EggoCluster of the Cluster is gone, or its
// status.nodes does not list <cluster>-lb and no Job runs; until then it
// stays claimed, in phase Cleaning. The endpoint host is released at
// once, unless a machine holds it: then only once that machine let it
// go (the SSHMachine unsets itself from the claim and leaves the rest to
// the SSHCluster).
func (r *SSHClusterReconciler) reconcileDelete(ctx context.Context, sc *infrav1.SSHCluster) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(sc, ClusterFinalizer) {
		return ctrl.Result{}, nil
	}
	host, err := chosenHost(ctx, r.APIReader, sc)
	if err != nil {
		return ctrl.Result{}, err
	}
	ref := ownerCluster(sc)
	var c *infrav1.SSHHostClaim
	if host != nil && ref != nil {
		c = host.Spec.ClaimRef
		if c != nil && (c.ClusterUID != string(ref.UID) || c.Purpose == infrav1.ClaimMachine) {
			c = nil // another's (or no) claim: never touched
		}
	}
	if c != nil {
		wait, msg, err := r.holding(ctx, sc, c)
		if err != nil {
			return ctrl.Result{}, err
		}
		if wait != "" {
			if wait == WaitingForNodeRemovalReason {
				if res, err := markCleaning(ctx, r.Client, host, msg); err != nil || !res.IsZero() {
					return res, err
				}
			}
			res, err := r.status(ctx, sc, false, notReady(wait, msg))
			if err != nil || !res.IsZero() {
				return res, err
			}
			return ctrl.Result{RequeueAfter: removalRetry}, nil
		}
		host.Spec.ClaimRef = nil
		if err := r.Client.Update(ctx, host); err != nil {
			return requeueOnConflict(err)
		}
		ctrl.LoggerFrom(ctx).Info("released the host", "host", host.Name, "purpose", c.Purpose, "why", msg)
	}
	if host != nil {
		if res, err := makeAvailable(ctx, r.Client, host, "SSHCluster "+sc.Name, "the SSHCluster is deleted"); err != nil || !res.IsZero() {
			return res, err
		}
	}
	controllerutil.RemoveFinalizer(sc, ClusterFinalizer)
	if err := r.Client.Update(ctx, sc); err != nil {
		return requeueOnConflict(err)
	}
	return ctrl.Result{}, nil
}

// holding says why the deleted sc must still hold the host it claimed
// (c): a reason and its message, or no reason and what lets it go.
func (r *SSHClusterReconciler) holding(ctx context.Context, sc *infrav1.SSHCluster, c *infrav1.SSHHostClaim) (string, string, error) {
	if c.MachineUID != "" {
		return WaitingForMachineReleaseReason, "waiting for SSHMachine " + c.MachineName + " to release the endpoint host", nil
	}
	if c.Purpose != infrav1.ClaimLoadBalancer {
		return "", "no machine holds the endpoint host", nil
	}
	ec, err := eggoCluster(ctx, r.APIReader, sc.Namespace, c.ClusterName)
	if err != nil || ec == nil {
		return "", "the EggoCluster " + c.ClusterName + " is gone", err
	}
	node := infrav1.LoadBalancerNodeName(c.ClusterName)
	state, listed := nodeState(ec, node)
	if !listed && ec.Status.ActiveJob != "" {
		state, listed = "a Job ("+ec.Status.ActiveJob+") runs", true
	}
	if listed {
		return WaitingForNodeRemovalReason, fmt.Sprintf("waiting for eggo to remove node %s (%s) from the EggoCluster %s",
			node, state, c.ClusterName), nil
	}
	return "", "eggo removed node " + node, nil
}
