package infrastructure

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/internal/paused"
)

// claim returns the host the live API shows held by m, or nil (with what
// to do) while it is not, by the discipline of host.go. A control-plane
// machine (cp) first takes its cluster's endpoint host: the one its
// SSHCluster's controlPlaneHostSelector reserved (purpose
// ControlPlaneEndpoint, no machine yet), by a compare-and-swap that sets
// machineName and machineUID; while that SSHCluster has not reserved it
// yet, the machine waits. A worker never takes it.
func (r *SSHMachineReconciler) claim(ctx context.Context, m *infrav1.SSHMachine, cluster *clusterv1.Cluster, cp bool) (*infrav1.SSHHost, ctrl.Result, error) {
	pc := paused.Condition(cluster, m, "SSHMachine")
	cl := claimant{client: r.Client, reader: r.APIReader, obj: m,
		holds: func(c *infrav1.SSHHostClaim) bool { return c.MachineUID == string(m.UID) },
		take: func(h *infrav1.SSHHost) bool {
			switch c := h.Spec.ClaimRef; {
			case c == nil && claimable(h, m.Spec.HostSelector):
				h.Spec.ClaimRef = &infrav1.SSHHostClaim{ClusterName: cluster.Name, ClusterUID: string(cluster.UID),
					Purpose: infrav1.ClaimMachine, MachineName: m.Name, MachineUID: string(m.UID)}
			case cp && reservation(c, string(cluster.UID)):
				c.MachineName, c.MachineUID = m.Name, string(m.UID)
			default:
				return false
			}
			return true
		}}
	name := m.Annotations[infrav1.HostAnnotation]
	if name != "" {
		return cl.claim(ctx, name)
	}
	chosen, wait, err := r.chooseHost(ctx, m, cluster, cp)
	if err != nil {
		return nil, ctrl.Result{}, err
	}
	if chosen == "" {
		claimed := metav1.Condition{Type: infrav1.SSHMachineHostClaimedCondition, Status: metav1.ConditionFalse,
			Reason: NoHostAvailableReason, Message: fmt.Sprintf("no Available SSHHost of pool %q matches", m.Spec.HostSelector.Pool)}
		ready := notReady(WaitingForHostReason, "waiting for a free SSHHost")
		if wait != "" {
			claimed.Reason, claimed.Message = WaitingForEndpointHostReason, wait
			ready = notReady(WaitingForEndpointHostReason, wait)
		}
		res, err := r.status(ctx, m, nil, pc, claimed, ready)
		if res.IsZero() && err == nil {
			res.RequeueAfter = noHostRetry
		}
		return nil, res, err
	}
	if res, err := cl.record(ctx, chosen); err != nil || !res.IsZero() {
		return nil, res, err
	}
	return cl.claim(ctx, chosen)
}

// chooseHost is the host m is to claim: for a control-plane machine its
// cluster's endpoint host while no machine holds it, else the first free
// host of its selector; "" if none, with, when not "", why m waits for
// the endpoint host rather than take another.
func (r *SSHMachineReconciler) chooseHost(ctx context.Context, m *infrav1.SSHMachine, cluster *clusterv1.Cluster, cp bool) (string, string, error) {
	if cp {
		name, wait, err := r.endpointHost(ctx, m.Namespace, cluster)
		if name != "" || wait != "" || err != nil {
			return name, wait, err
		}
	}
	name, err := chooseFree(ctx, r.APIReader, m.Namespace, m.Spec.HostSelector)
	return name, "", err
}

// endpointHost is, for a cluster whose SSHCluster reserves the first
// master's host (controlPlaneHostSelector), that host while no machine
// holds it; or, while the SSHCluster has reserved none yet, why to wait.
// Both are "" for a cluster of another kind, or once a machine holds it.
func (r *SSHMachineReconciler) endpointHost(ctx context.Context, ns string, cluster *clusterv1.Cluster) (string, string, error) {
	ref := cluster.Spec.InfrastructureRef
	if ref.APIGroup != infrav1.GroupVersion.Group || ref.Kind != "SSHCluster" || ref.Name == "" {
		return "", "", nil
	}
	sc := &infrav1.SSHCluster{}
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: ns, Name: ref.Name}, sc); err != nil {
		return "", "", client.IgnoreNotFound(err)
	}
	if sc.Spec.ControlPlaneHostSelector == nil {
		return "", "", nil
	}
	hosts := &infrav1.SSHHostList{}
	if err := r.APIReader.List(ctx, hosts, client.InNamespace(ns)); err != nil {
		return "", "", err
	}
	for i := range hosts.Items {
		c := hosts.Items[i].Spec.ClaimRef
		if c == nil || c.ClusterUID != string(cluster.UID) || c.Purpose != infrav1.ClaimControlPlaneEndpoint {
			continue
		}
		if c.MachineUID == "" {
			return hosts.Items[i].Name, "", nil
		}
		return "", "", nil // a machine holds it: take another
	}
	if sc.Status.Initialization.Provisioned != nil && *sc.Status.Initialization.Provisioned {
		return "", "", nil
	}
	return "", "waiting for the SSHCluster " + sc.Name + " to reserve the endpoint host", nil
}
