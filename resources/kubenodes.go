package resources

// NodeRoles are the roles whose nodes are Kubernetes Nodes: they run
// containerd, kubelet, kube-proxy and the pod network's agent, as in every
// kubeadm-shaped cluster. Dedicated etcd and load-balancer nodes are not.
var NodeRoles = []string{"master", "worker"}

// Control-plane Nodes carry this label and, unless the cluster schedules
// workloads on its masters, this taint (with effect NoSchedule): the
// names kubeadm gives them, which conformance and operators' tolerations
// expect.
const (
	ControlPlaneLabel = "node-role.kubernetes.io/control-plane"
	ControlPlaneTaint = "node-role.kubernetes.io/control-plane"
	WorkerLabel       = "node-role.kubernetes.io/worker"
)

// IsKubeNode reports whether n is a Kubernetes Node (has one of NodeRoles).
func (n Node) IsKubeNode() bool {
	for _, r := range NodeRoles {
		if n.HasRole(r) {
			return true
		}
	}
	return false
}

// KubeNodes are the cluster's Kubernetes Nodes in declaration order. While
// c is indexed the slice is shared: read it, never change it.
func (c *Cluster) KubeNodes() []Node {
	if c.topo != nil {
		return c.topo.kubeNodes
	}
	return c.kubeNodes()
}

func (c *Cluster) kubeNodes() []Node {
	var out []Node
	for _, n := range c.Nodes {
		if n.IsKubeNode() {
			out = append(out, n)
		}
	}
	return out
}

// Tainted reports whether n is registered with the control-plane taint: a
// master that is not also a worker, in a cluster that does not schedule
// workloads on its masters.
func (c *Cluster) Tainted(n Node) bool {
	return n.HasRole("master") && !n.HasRole("worker") && !c.ScheduleOnMasters
}

// SchedulableNodes are the Nodes ordinary pods (add-ons without
// tolerations) can land on: the workers, and the masters too when the
// cluster schedules workloads on them.
func (c *Cluster) SchedulableNodes() []Node {
	var out []Node
	for _, n := range c.KubeNodes() {
		if !c.Tainted(n) {
			out = append(out, n)
		}
	}
	return out
}
