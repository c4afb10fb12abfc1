package kube

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// K8sNode is the k8s_node kind: a master's or worker's Node object in the
// cluster (k8s_node.w0). Create labels it once its kubelet registered
// (node-role.kubernetes.io/control-plane or /worker), keeps a master's
// control-plane taint, and sets its spec.podCIDR to the Node's pod subnet
// (which the state keeps, see PodSubnets), which flannel reads; Delete
// cordons and drains it and deletes the object before its services stop.
// It works through a master's admin kubeconfig, over that master's SSH
// connection, so the operator's machine never needs to reach the API.
type K8sNode struct{}

// K8sNodeAddr is a Node object's address.
func K8sNodeAddr(node string) string { return "k8s_node." + node }

const (
	k8sNodeName   = "node_name"
	k8sNodeLabels = "labels"
	k8sNodeTaints = "taints" // ["key=value:Effect" or "key:Effect"]: the taints eggo keeps; absent when none
	// k8sNodeProviderID is the Node's spec.providerID (the node's
	// provider_id; absent when none), set once when it registers.
	k8sNodeProviderID = "provider_id"
	k8sNodeVia        = "via" // {node, address, connection, kubeconfig}: the master eggo talks to the API through
)

// Name is "k8s_node".
func (K8sNode) Name() string { return "k8s_node" }

// Schema describes a Node object.
func (K8sNode) Schema() resources.Schema {
	return resources.Schema{Attributes: map[string]resources.AttrSchema{
		k8sNodeName:       {Description: "the Node's name", ForceNew: true},
		k8sNodeLabels:     {Description: "labels eggo sets on the Node (node labels plus node-role.kubernetes.io/control-plane or /worker)"},
		k8sNodeTaints:     {Description: "taints eggo keeps on the Node (a master's node-role.kubernetes.io/control-plane:NoSchedule unless schedule_on_masters, then the node's taints)"},
		k8sNodeProviderID: {Description: "the Node's spec.providerID, which its kubelet registers and which never changes"},
		k8sNodeVia:        {Description: "the master whose admin kubeconfig eggo uses"},
		AttrPodSubnet:     {Description: "the Node's spec.podCIDR: the node's slice of pod_cidr, kept while the node is in the state"},
	}}
}

// Expand returns one Node object per master and worker.
func (K8sNode) Expand(c *resources.Cluster) ([]resources.Desired, error) {
	masters := c.NodesWithRole("master")
	if len(masters) == 0 {
		return nil, nil
	}
	via := map[string]any{
		"node":       masters[0].Name,
		"address":    masters[0].Address,
		"connection": resources.ConnectionAttrsIn(c, masters[0]),
		"kubeconfig": AdminKubeconfigPath(c),
	}
	nodes := c.KubeNodes()
	subnets, err := PodSubnets(c, nodes)
	if err != nil {
		return nil, resources.Blame(c.At("network.pod_cidr"), "Unusable pod_cidr", "%v", err)
	}
	// The API a Node is labelled through (the first master's apiserver)
	// must serve first: a master's kubelet in the pod implementation is
	// healthy before any apiserver is.
	viaAPI := resources.ServiceAddr(resources.CompAPIServer, masters[0].Name)
	out := make([]resources.Desired, 0, len(nodes))
	for _, n := range nodes {
		attrs := resources.Attrs{k8sNodeName: n.Name, k8sNodeLabels: nodeLabels(n), k8sNodeVia: via, AttrPodSubnet: subnets[n.Name]}
		if taints := nodeTaints(c, n); len(taints) > 0 {
			list := make([]any, len(taints))
			for i, t := range taints {
				list[i] = t
			}
			attrs[k8sNodeTaints] = list
		}
		if n.ProviderID != "" {
			attrs[k8sNodeProviderID] = n.ProviderID
		}
		out = append(out, resources.Desired{
			Addr:      K8sNodeAddr(n.Name),
			Kind:      "k8s_node",
			Node:      n.Name,
			Source:    n.Source,
			Range:     n.Ranges.Block,
			Attrs:     attrs,
			DependsOn: []string{resources.ServiceAddr(resources.CompKubelet, n.Name), viaAPI},
		})
	}
	return out, nil
}

// nodeLabels are the labels eggo sets on n's Node: its role labels, then
// the node's own labels (which may override them).
func nodeLabels(n resources.Node) map[string]any {
	labels := map[string]any{}
	if n.HasRole("master") {
		labels[resources.ControlPlaneLabel] = ""
	}
	if n.HasRole("worker") {
		labels[resources.WorkerLabel] = ""
	}
	for k, v := range n.Labels {
		labels[k] = v
	}
	return labels
}

// KubectlVia runs kubectl on a master; it tries the recorded master first,
// then any other master in state, so a dead master does not block a drain.
func KubectlVia(ctx context.Context, rc *resources.RunContext, addr string, via map[string]any, mutates bool, script func(kubectl string) string) (string, error) {
	type master struct {
		node       string
		attrs      resources.Attrs
		kubeconfig string
	}
	kubeconfig := resources.AttrOr(resources.AttrString(via["kubeconfig"]), "/etc/kubernetes/admin.conf")
	candidates := []master{{resources.AttrString(via["node"]), resources.Attrs{"address": via["address"], "connection": via["connection"]}, kubeconfig}}
	for _, h := range rc.Recorded("host") {
		if h.Node != candidates[0].node && !h.Pending && slices.Contains(resources.StringList(h.Attrs["roles"]), "master") {
			candidates = append(candidates, master{h.Node, h.Attrs, kubeconfig})
		}
	}
	var errs []string
	for _, m := range candidates {
		conn, err := serviceConn(ctx, rc, m.node, addr, m.attrs)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		// The API may answer with a passing error right after a master
		// or etcd member came back (leader changed): a few tries, spaced.
		// Every script here is idempotent.
		var out string
		for attempt := 1; ; attempt++ {
			out, err = resources.RunScript(ctx, conn, script(kubectlWith(m.kubeconfig)), mutates)
			if err == nil || attempt == 4 || ctx.Err() != nil {
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(attempt) * 2 * time.Second):
			}
		}
		if err != nil {
			return out, fmt.Errorf("%s: through master %s: %w", addr, m.node, err)
		}
		return out, nil
	}
	return "", fmt.Errorf("%s: no master reachable to talk to the API: %s", addr, strings.Join(errs, "; "))
}

// Read checks the Node object still exists and still has its podCIDR and
// the taints eggo keeps (a taint removed by hand is drift the plan
// repairs). Every k8s_node of a run asks
// the same API the same question, so one listing of the cluster's Nodes
// serves them all (a per-run memo): one kubectl call per refresh, not one
// per worker.
func (K8sNode) Read(ctx context.Context, rc *resources.RunContext, prior resources.Object) (resources.Attrs, []resources.Reason, error) {
	via, _ := prior.Attrs[k8sNodeVia].(map[string]any)
	nodes, err := clusterNodes(ctx, rc, via)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", prior.Addr, err)
	}
	live, ok := nodes[resources.AttrString(prior.Attrs[k8sNodeName])]
	if !ok {
		return nil, nil, nil // deleted outside eggo: the plan re-creates (re-labels) it
	}
	out := maps.Clone(prior.Attrs)
	if _, recorded := prior.Attrs[AttrPodSubnet]; recorded {
		out[AttrPodSubnet] = live.podCIDR // "" when unset: the plan sets it again
	}
	if kept, recorded := prior.Attrs[k8sNodeTaints].([]any); recorded {
		present := []any{}
		for _, t := range kept {
			if slices.Contains(live.taintKeys, taintKey(resources.AttrString(t))) {
				present = append(present, t)
			}
		}
		out[k8sNodeTaints] = present
	}
	if _, recorded := prior.Attrs[k8sNodeProviderID]; recorded {
		out[k8sNodeProviderID] = live.providerID
	}
	return out, nil, nil
}

// liveNode is what a refresh reads of one Node.
type liveNode struct {
	podCIDR    string   // "" when unset
	taintKeys  []string // the keys of its taints
	providerID string   // "" when unset
}

// clusterNodes is the Nodes the API holds, listed once per run through the
// master via. Four columns only: a thousand Nodes' full JSON would be
// megabytes.
func clusterNodes(ctx context.Context, rc *resources.RunContext, via map[string]any) (map[string]liveNode, error) {
	key := fmt.Sprintf("k8s_node/nodes via %s %s %s", resources.AttrString(via["node"]), resources.AttrString(via["address"]), resources.AttrString(via["kubeconfig"]))
	v, err := rc.Memo(key, func() (any, error) {
		out, err := KubectlVia(ctx, rc, "listing the cluster's Nodes", via, false, func(k string) string {
			return k + " get nodes --no-headers -o custom-columns=NAME:.metadata.name,CIDR:.spec.podCIDR,TAINTS:.spec.taints[*].key,PROVIDER:.spec.providerID\n"
		})
		if err != nil {
			return nil, err
		}
		return parseNodes(out), nil
	})
	if err != nil {
		return nil, err
	}
	return v.(map[string]liveNode), nil
}

// parseNodes reads the columns of clusterNodes: "w0 10.244.0.0/24 <none>
// <none>", "m0 10.244.1.0/24 node-role.kubernetes.io/control-plane,other
// eggo://c/m0/1", "<none>" for what a Node lacks.
func parseNodes(out string) map[string]liveNode {
	column := func(f []string, i int) string {
		if len(f) > i && f[i] != "<none>" {
			return f[i]
		}
		return ""
	}
	nodes := map[string]liveNode{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		n := liveNode{podCIDR: column(f, 1), providerID: column(f, 3)}
		if keys := column(f, 2); keys != "" {
			n.taintKeys = strings.Split(keys, ",")
		}
		nodes[f[0]] = n
	}
	return nodes
}

// Plan: labels are applied in place; the master used is only recorded.
func (k K8sNode) Plan(_ context.Context, _ *resources.RunContext, prior *resources.Object, desired resources.Desired) (resources.Change, error) {
	ch := resources.Change{Addr: desired.Addr, Kind: desired.Kind, Node: desired.Node, After: desired.Attrs}
	if prior == nil || prior.Attrs == nil {
		ch.Action, ch.Reasons = resources.Create, []resources.Reason{{Code: resources.ReasonNew}}
		return ch, nil
	}
	ch.Before = prior.Attrs
	if err := podSubnetMoves(desired.Addr, prior.Attrs, desired.Attrs); err != nil {
		return ch, err
	}
	if err := providerIDChanges(desired, prior.Attrs); err != nil {
		return ch, err
	}
	ch.Changed = resources.ChangedAttrs(k.Schema(), prior.Attrs, desired.Attrs)
	if len(ch.Changed) == 0 && !prior.Pending {
		ch.Action, ch.After, ch.Changed = resources.NoOp, prior.Attrs, nil
		return ch, nil
	}
	ch.Action = resources.Update
	ch.Reasons = []resources.Reason{{Code: resources.ReasonConfig, Detail: strings.Join(ch.Changed, ", ")}}
	return ch, nil
}

// Create labels the registered Node.
func (K8sNode) Create(ctx context.Context, rc *resources.RunContext, desired resources.Desired, _ resources.Change) (resources.Attrs, error) {
	return labelNode(ctx, rc, desired, nil)
}

// Update sets changed labels and taints and removes those no longer wanted.
func (K8sNode) Update(ctx context.Context, rc *resources.RunContext, prior resources.Object, desired resources.Desired, _ resources.Change) (resources.Attrs, error) {
	return labelNode(ctx, rc, desired, prior.Attrs)
}

func labelNode(ctx context.Context, rc *resources.RunContext, desired resources.Desired, prior resources.Attrs) (resources.Attrs, error) {
	name := resources.AttrString(desired.Attrs[k8sNodeName])
	want, _ := desired.Attrs[k8sNodeLabels].(map[string]any)
	had, _ := prior[k8sNodeLabels].(map[string]any)
	var args []string
	for k, v := range want {
		args = append(args, shell.Quote(k+"="+resources.AttrString(v)))
	}
	for k := range had {
		if _, ok := want[k]; !ok {
			args = append(args, shell.Quote(k+"-"))
		}
	}
	sort.Strings(args)
	via, _ := desired.Attrs[k8sNodeVia].(map[string]any)
	rc.Progress(desired.Addr, "labelling node "+name)
	_, err := KubectlVia(ctx, rc, desired.Addr, via, true, func(k string) string {
		wantTaints, _ := desired.Attrs[k8sNodeTaints].([]any)
		hadTaints, _ := prior[k8sNodeTaints].([]any)
		return registered(k, name, prior == nil) +
			fmt.Sprintf("%s label node %s --overwrite %s >/dev/null\n", k, shell.Quote(name), strings.Join(args, " ")) +
			setTaints(k, name, wantTaints, hadTaints) +
			setPodCIDR(k, name, resources.AttrString(desired.Attrs[AttrPodSubnet])) +
			setProviderID(k, name, resources.AttrString(desired.Attrs[k8sNodeProviderID]))
	})
	if err != nil {
		return prior, err
	}
	return desired.Attrs, nil
}

// nodeRegisterWait is how long a new Node's k8s_node waits for the kubelet
// to register it: a master's kubelet in the pod implementation registers
// only once the apiserver it starts serves, which nothing else waits for.
const nodeRegisterWait = 2 * time.Minute

// registered is the shell that waits for a new Node to be registered (for
// a Node already labelled once: nothing).
func registered(kubectl, name string, isNew bool) string {
	if !isNew {
		return ""
	}
	return fmt.Sprintf("for i in $(seq %d); do %s get node %s -o name >/dev/null 2>&1 && break; sleep 1; done\n",
		int(nodeRegisterWait/time.Second), kubectl, shell.Quote(name))
}

// Delete cordons, drains and deletes the Node. `eggo destroy` skips it
// (the whole cluster goes); -force deletes the object without draining,
// for a node that is dead.
func (K8sNode) Delete(ctx context.Context, rc *resources.RunContext, prior resources.Object) (resources.Attrs, error) {
	if rc.Destroy {
		return nil, nil
	}
	name := shell.Quote(resources.AttrString(prior.Attrs[k8sNodeName]))
	via, _ := prior.Attrs[k8sNodeVia].(map[string]any)
	rc.Progress(prior.Addr, "draining node "+resources.AttrString(prior.Attrs[k8sNodeName]))
	_, err := KubectlVia(ctx, rc, prior.Addr, via, true, func(k string) string {
		drain := drainCommand(k, name)
		if rc.Force {
			drain = ""
		}
		return fmt.Sprintf("set -e\nif %[1]s get node %[2]s >/dev/null 2>&1; then\n%[1]s cordon %[2]s >/dev/null\n%[3]s%[1]s delete node %[2]s >/dev/null\nfi\n", k, name, drain)
	})
	if err != nil {
		return prior.Attrs, err
	}
	return nil, nil
}
