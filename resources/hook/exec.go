package hook

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hookrun"
)

// Node is the node a hook runs on, as the plan saw it. It is taken
// from the configuration, or from the recorded host for a node that left
// it (a delete), so a saved plan can reach the host on its own.
type Node struct {
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

// onThisMachine is whether a hook for n runs on the machine running eggo:
// run_on = "operator", or a node reached by the local transport.
func (n Node) onThisMachine() bool {
	return n.Local || n.Connection["type"] == "local"
}

// OperatorNode is where a run_on = "operator" hook runs.
var OperatorNode = Node{Name: "operator", Local: true}

// NodeOf describes a configured node.
func NodeOf(n resources.Node) Node {
	return Node{Name: n.Name, IP: n.Address, Arch: resources.NodeArch(n), Roles: n.Roles, Connection: resources.ConnectionAttrs(n)}
}

// NodeFromHost describes a node from its recorded host attributes.
func NodeFromHost(name string, a resources.Attrs) Node {
	hn := Node{Name: name, IP: resources.AttrString(a[resources.HostAttrAddress]), Arch: resources.AttrString(a[resources.HostAttrArch])}
	if roles, ok := a[resources.HostAttrRoles].([]any); ok {
		for _, r := range roles {
			hn.Roles = append(hn.Roles, resources.AttrString(r))
		}
	}
	if c, ok := a[resources.HostAttrConnection].(map[string]any); ok {
		hn.Connection = maps.Clone(c)
	}
	return hn
}

// Env is the environment of a shell hook run (issue 4, item 2);
// hookrun adds EGGO_HOOK_NAME and EGGO_HOOK_ATTEMPT.
func Env(c ClusterInfo, n Node, e Event) map[string]string {
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

// ClusterInfo is what a hook run needs of its cluster.
type ClusterInfo struct {
	Name        string            `json:"name"`
	APIEndpoint string            `json:"api_endpoint"`
	ConfigDir   string            `json:"config_dir"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ClusterOf is the hook view of c.
func ClusterOf(c *resources.Cluster) ClusterInfo {
	return ClusterInfo{Name: c.Name, APIEndpoint: c.Endpoint(), ConfigDir: c.ConfigDir, Labels: c.Labels, Annotations: c.Annotations}
}

// ClusterArgs are a cluster-scope hook's arguments: labels then
// annotations as key=value, each list sorted (tkestack's $@). hookrun
// passes each as one shell word.
func ClusterArgs(c ClusterInfo) []string {
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

// ArgValues are the values `{{ node.ip }}` and the like take in a
// check hook's args (ArgVars).
func ArgValues(c ClusterInfo, n Node) map[string]string {
	return map[string]string{"node.name": n.Name, "node.ip": n.IP, "cluster.name": c.Name, "cluster.api_endpoint": c.APIEndpoint}
}

// RunShell runs spec on n over the run's connection to it (the pool:
// one connection per host per run, shared with the resources).
func RunShell(ctx context.Context, rc *resources.RunContext, n Node, spec hookrun.Spec) hookrun.Outcome {
	var conn providers.Conn
	var err error
	if n.Local {
		conn, err = rc.ConnectLocal(ctx, n.Name)
	} else {
		conn, err = rc.Connect(ctx, n.Name, resources.Attrs{resources.HostAttrAddress: n.IP, resources.HostAttrConnection: n.Connection})
	}
	if err != nil {
		return hookrun.Outcome{Decision: hookrun.DecisionAbort, Err: fmt.Errorf("hook %q: %w", spec.Hook, err)}
	}
	if tmp := os.TempDir(); spec.TempDir == "" && n.onThisMachine() && filepath.IsAbs(tmp) {
		// The operator's machine: its scripts go where the operator's
		// programs keep theirs ($TMPDIR), as any program's would.
		spec.TempDir = tmp
	}
	return hookrun.Run(ctx, conn, n.Name, spec)
}
