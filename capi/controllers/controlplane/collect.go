package controlplane

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
)

// collected is what the cluster's Machines offer eggo: those ready to be
// nodes (a claimed host, a providerID, bootstrap data) and how many wait.
type collected struct {
	ready    []Machine
	waiting  []string // names of Machines not ready yet
	deleting []string // names of Machines being deleted
	// heldKeys are the SSH key Secrets of the hosts the cluster claims
	// (Inputs.HeldKeys).
	heldKeys []string
	// newest is when the youngest waiting Machine was made: Machines made
	// together are let settle into one configuration (settle).
	newest time.Time
}

// settle is how long a new configuration waits for Machines made with
// those ready: Machines created together (a control plane's replicas, a
// MachineDeployment's) become ready within seconds of each other, and
// joining them in one plan and one apply costs one Job pair, not n. A
// Machine still waiting after it (a pool without a free host) no longer
// holds the others back.
const settle = 30 * time.Second

// settling says whether a Machine made less than settle ago still waits.
func (c collected) settling(now time.Time) bool {
	return len(c.waiting) > 0 && now.Sub(c.newest) < settle
}

// planMachines is what a plan of this configuration may touch.
func (c collected) planMachines() planMachines {
	m := planMachines{live: map[string]bool{}, deleting: map[string]bool{}}
	for _, r := range c.ready {
		m.live[r.Name] = true
	}
	for _, n := range c.deleting {
		m.deleting[n] = true
	}
	return m
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
	// The SSHMachines and SSHHosts of the namespace are listed once a
	// pass, not read once a Machine: a pass runs on every Machine's
	// event, and n Machines coming up would cost n² reads.
	var sms infrav1.SSHMachineList
	var hosts infrav1.SSHHostList
	if err := r.APIReader.List(ctx, &sms, client.InNamespace(cluster.Namespace)); err != nil {
		return out, err
	}
	if err := r.APIReader.List(ctx, &hosts, client.InNamespace(cluster.Namespace)); err != nil {
		return out, err
	}
	// The bootstrap data Secrets too, by the cluster-name label the
	// bootstrap provider puts on them: one list, not a read a Machine.
	var secrets corev1.SecretList
	if err := r.APIReader.List(ctx, &secrets, client.InNamespace(cluster.Namespace),
		client.MatchingLabels{clusterv1.ClusterNameLabel: cluster.Name}); err != nil {
		return out, err
	}
	live := pool{machines: map[string]*infrav1.SSHMachine{}, hosts: map[string]*infrav1.SSHHost{}, secrets: map[string]*corev1.Secret{}}
	for i := range secrets.Items {
		live.secrets[secrets.Items[i].Name] = &secrets.Items[i]
	}
	for i := range sms.Items {
		live.machines[sms.Items[i].Name] = &sms.Items[i]
	}
	for i := range hosts.Items {
		live.hosts[hosts.Items[i].Name] = &hosts.Items[i]
	}
	if lb := loadBalancer(cluster, hosts.Items); lb != nil {
		out.ready = append(out.ready, *lb)
	}
	for _, h := range hosts.Items {
		if c := h.Spec.ClaimRef; c != nil && c.ClusterName == cluster.Name && c.ClusterUID == string(cluster.UID) {
			out.heldKeys = append(out.heldKeys, h.Spec.SSHKeySecretRef.Name)
		}
	}
	for i := range list.Items {
		m := &list.Items[i]
		if !m.DeletionTimestamp.IsZero() {
			out.deleting = append(out.deleting, m.Name)
			continue
		}
		node, err := r.machine(m, live)
		if err != nil {
			return out, fmt.Errorf("machine %s: %w", m.Name, err)
		}
		if node == nil {
			out.waiting = append(out.waiting, m.Name)
			if t := m.CreationTimestamp.Time; t.After(out.newest) {
				out.newest = t
			}
			continue
		}
		out.ready = append(out.ready, *node)
	}
	return out, nil
}

// loadBalancer is the node of eggo's load balancer (role loadbalance) on
// the host the cluster's SSHCluster claimed for it, nil while there is
// none: it is no Machine, and no Node (no providerID).
func loadBalancer(cluster *clusterv1.Cluster, hosts []infrav1.SSHHost) *Machine {
	for i := range hosts {
		c := hosts[i].Spec.ClaimRef
		if c != nil && c.ClusterName == cluster.Name && c.ClusterUID == string(cluster.UID) && c.Purpose == infrav1.ClaimLoadBalancer {
			return &Machine{Name: infrav1.LoadBalancerNodeName(cluster.Name), Host: &hosts[i],
				Data: BootstrapData{Roles: []string{"loadbalance"}}}
		}
	}
	return nil
}

// pool is the namespace's SSHMachines and SSHHosts and the cluster's
// Secrets by name, as listed.
type pool struct {
	machines map[string]*infrav1.SSHMachine
	hosts    map[string]*infrav1.SSHHost
	secrets  map[string]*corev1.Secret // the cluster's, labelled with its name
}

// machine is m as a node of the configuration, or nil while it is not
// ready to be one.
func (r *Reconciler) machine(m *clusterv1.Machine, live pool) (*Machine, error) {
	ref := m.Spec.InfrastructureRef
	if ref.APIGroup != infrav1.GroupVersion.Group || ref.Kind != "SSHMachine" || m.Spec.Bootstrap.DataSecretName == nil {
		return nil, nil
	}
	sm := live.machines[ref.Name]
	if sm == nil {
		return nil, nil
	}
	hostName := sm.Annotations[infrav1.HostAnnotation]
	host := live.hosts[hostName]
	if sm.Spec.ProviderID == "" || host == nil {
		return nil, nil
	}
	if c := host.Spec.ClaimRef; c == nil || c.MachineUID != string(sm.UID) {
		return nil, nil // the claim is not (or no longer) this machine's
	}
	sec := live.secrets[*m.Spec.Bootstrap.DataSecretName]
	if sec == nil {
		return nil, nil
	}
	data, err := ParseBootstrapData(sec.Data["value"])
	if err != nil {
		return nil, fmt.Errorf("its data Secret %s: %w", sec.Name, err)
	}
	return &Machine{Name: m.Name, Host: host, ProviderID: sm.Spec.ProviderID, Data: data}, nil
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
