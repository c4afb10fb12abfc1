package controlplane

import (
	"context"
	"fmt"
	"net"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
)

// collected is what the cluster's Machines offer eggo: those ready to be
// nodes (a claimed host, a providerID, bootstrap data) and how many wait.
type collected struct {
	ready   []Machine
	waiting []string // names of Machines not ready yet
}

// collect reads every Machine of the cluster, control plane and workers
// alike, past the cache: a node enters the configuration only when its
// SSHMachine holds a host whose live claim names that SSHMachine, it has
// its providerID, and its bootstrap data Secret is written. A Machine
// being deleted is left out (eggo removes its node).
func (r *Reconciler) collect(ctx context.Context, cluster *clusterv1.Cluster) (collected, error) {
	var out collected
	var list clusterv1.MachineList
	if err := r.APIReader.List(ctx, &list, client.InNamespace(cluster.Namespace),
		client.MatchingLabels{clusterv1.ClusterNameLabel: cluster.Name}); err != nil {
		return out, err
	}
	for i := range list.Items {
		m := &list.Items[i]
		if !m.DeletionTimestamp.IsZero() {
			continue
		}
		node, err := r.machine(ctx, m)
		if err != nil {
			return out, fmt.Errorf("machine %s: %w", m.Name, err)
		}
		if node == nil {
			out.waiting = append(out.waiting, m.Name)
			continue
		}
		out.ready = append(out.ready, *node)
	}
	return out, nil
}

// machine is m as a node of the configuration, or nil while it is not
// ready to be one.
func (r *Reconciler) machine(ctx context.Context, m *clusterv1.Machine) (*Machine, error) {
	ref := m.Spec.InfrastructureRef
	if ref.APIGroup != infrav1.GroupVersion.Group || ref.Kind != "SSHMachine" || m.Spec.Bootstrap.DataSecretName == nil {
		return nil, nil
	}
	var sm infrav1.SSHMachine
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: ref.Name}, &sm); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	hostName := sm.Annotations[infrav1.HostAnnotation]
	if sm.Spec.ProviderID == "" || hostName == "" {
		return nil, nil
	}
	var host infrav1.SSHHost
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: hostName}, &host); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	if c := host.Spec.ClaimRef; c == nil || c.MachineUID != string(sm.UID) {
		return nil, nil // the claim is not (or no longer) this machine's
	}
	var sec corev1.Secret
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: *m.Spec.Bootstrap.DataSecretName}, &sec)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	data, err := ParseBootstrapData(sec.Data["value"])
	if err != nil {
		return nil, fmt.Errorf("its data Secret %s: %w", sec.Name, err)
	}
	return &Machine{Name: m.Name, Host: &host, ProviderID: sm.Spec.ProviderID, Data: data}, nil
}

// endpoint is the Cluster's control-plane endpoint as HOST:PORT ("" while
// it has none).
func endpoint(cluster *clusterv1.Cluster) string {
	ep := cluster.Spec.ControlPlaneEndpoint
	if ep.Host == "" {
		return ""
	}
	port := ep.Port
	if port == 0 {
		port = 6443
	}
	return net.JoinHostPort(ep.Host, strconv.Itoa(int(port)))
}

// hasMaster: eggo refuses a configuration without a master.
func hasMaster(ms []Machine) bool {
	for _, m := range ms {
		for _, r := range m.Data.Roles {
			if r == "master" {
				return true
			}
		}
	}
	return false
}
