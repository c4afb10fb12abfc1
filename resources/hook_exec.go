package resources

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/resources/hookrun"
)

// HookNode is the node a hook runs on, as the plan saw it. It is taken
// from the configuration, or from the recorded host for a node that left
// it (a delete), so a saved plan can reach the host on its own.
type HookNode struct {
	Name  string   `json:"name"`
	IP    string   `json:"ip"`
	Arch  string   `json:"arch"`
	Roles []string `json:"roles"`
	// Connection is the node's connection attribute (ConnectionAttrs): no
	// password, only the name of the variable that holds it.
	Connection map[string]any `json:"connection"`
	// Local is the machine running eggo (run_on = "operator").
	Local bool `json:"local,omitempty"`
}

// OperatorNode is where a run_on = "operator" hook runs.
var OperatorNode = HookNode{Name: "operator", Local: true}

// HookNodeOf describes a configured node.
func HookNodeOf(n Node) HookNode {
	return HookNode{Name: n.Name, IP: n.Address, Arch: NodeArch(n), Roles: n.Roles, Connection: ConnectionAttrs(n)}
}

// HookNodeFromHost describes a node from its recorded host attributes.
func HookNodeFromHost(name string, a Attrs) HookNode {
	hn := HookNode{Name: name, IP: attrString(a[HostAttrAddress]), Arch: attrString(a[HostAttrArch])}
	if roles, ok := a[HostAttrRoles].([]any); ok {
		for _, r := range roles {
			hn.Roles = append(hn.Roles, attrString(r))
		}
	}
	if c, ok := a[HostAttrConnection].(map[string]any); ok {
		hn.Connection = maps.Clone(c)
	}
	return hn
}

// HookEnv is the environment of a shell hook run (issue 4, item 2);
// hookrun adds EGGO_HOOK_NAME and EGGO_HOOK_ATTEMPT.
func HookEnv(c HookClusterInfo, n HookNode, e HookEvent) map[string]string {
	return map[string]string{
		"EGGO_CLUSTER_ID":           c.Name,
		"EGGO_CLUSTER_API_ENDPOINT": c.APIEndpoint,
		"EGGO_CLUSTER_CONFIG_DIR":   c.ConfigDir,
		"EGGO_NODE_IP":              n.IP,
		"EGGO_NODE_NAME":            n.Name,
		"EGGO_NODE_ARCH":            n.Arch,
		"EGGO_NODE_ROLE":            strings.Join(n.Roles, ","),
		"EGGO_HOOK_TYPE":            e.Timing.EnvType(),
		"EGGO_OPERATOR":             string(e.Operation),
	}
}

// HookClusterInfo is what a hook run needs of its cluster.
type HookClusterInfo struct {
	Name        string            `json:"name"`
	APIEndpoint string            `json:"api_endpoint"`
	ConfigDir   string            `json:"config_dir"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// HookClusterOf is the hook view of c.
func HookClusterOf(c *Cluster) HookClusterInfo {
	return HookClusterInfo{Name: c.Name, APIEndpoint: c.Endpoint(), ConfigDir: c.ConfigDir, Labels: c.Labels, Annotations: c.Annotations}
}

// ClusterHookArgs are a cluster-scope hook's arguments: labels then
// annotations as key=value, each list sorted (tkestack's $@). hookrun
// passes each as one shell word.
func ClusterHookArgs(c HookClusterInfo) []string {
	var out []string
	for _, m := range []map[string]string{c.Labels, c.Annotations} {
		var kv []string
		for k, v := range m {
			kv = append(kv, k+"="+v)
		}
		sort.Strings(kv)
		out = append(out, kv...)
	}
	return out
}

// HookArgValues are the values `{{ node.ip }}` and the like take in a
// check hook's args (HookArgVars).
func HookArgValues(c HookClusterInfo, n HookNode) map[string]string {
	return map[string]string{"node.name": n.Name, "node.ip": n.IP, "cluster.name": c.Name, "cluster.api_endpoint": c.APIEndpoint}
}

// RunShellHook runs spec on n over the run's connection to it (the pool:
// one connection per host per run, shared with the resources).
func RunShellHook(ctx context.Context, rc *RunContext, n HookNode, spec hookrun.Spec) hookrun.Outcome {
	t, err := TargetFromAttrs(n.Name, Attrs{hostAddress: n.IP, hostConnection: n.Connection})
	if n.Local {
		t, err = providers.Target{Name: n.Name, Type: "local"}, nil
	}
	if err != nil {
		return hookrun.Outcome{Decision: hookrun.DecisionAbort, Err: fmt.Errorf("hook %q: %w", spec.Hook, err)}
	}
	conn, err := rc.Pool.Get(ctx, t)
	if err != nil {
		return hookrun.Outcome{Decision: hookrun.DecisionAbort, Err: fmt.Errorf("hook %q: host %s unreachable: %w", spec.Hook, n.Name, err)}
	}
	return hookrun.Run(ctx, conn, n.Name, spec)
}
