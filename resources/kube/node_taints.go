package kube

import (
	"fmt"
	"strings"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// setTaints is the script that keeps a Node's taints as eggo wants them:
// every wanted taint ("key=value:Effect" or "key:Effect") set, and every taint eggo set before
// and no longer wants removed (only those: taints of others stay). A
// taint already gone is not an error, so the script can run again.
func setTaints(kubectl, node string, want, had []any) string {
	var b strings.Builder
	wanted := map[string]bool{} // by key and effect: a taint's identity on a Node
	for _, t := range want {
		taint := resources.AttrString(t)
		wanted[taintID(taint)] = true
		fmt.Fprintf(&b, "%s taint node %s %s --overwrite >/dev/null\n", kubectl, shell.Quote(node), shell.Quote(taint))
	}
	for _, t := range had {
		taint := resources.AttrString(t)
		if wanted[taintID(taint)] {
			continue // kept, or given another value above
		}
		fmt.Fprintf(&b, "if %[1]s get node %[2]s -o jsonpath='{.spec.taints[*].key}' | tr ' ' '\\n' | grep -qxF %[3]s; then %[1]s taint node %[2]s %[4]s >/dev/null; fi\n",
			kubectl, shell.Quote(node), shell.Quote(taintKey(taint)), shell.Quote(taintID(taint)+"-"))
	}
	return b.String()
}

// nodeTaints are the taints eggo keeps on n's Node ("key=value:Effect" or
// "key:Effect"): a master's control-plane taint unless it schedules
// workloads, then the node's own.
func nodeTaints(c *resources.Cluster, n resources.Node) []string {
	var out []string
	if c.Tainted(n) {
		out = append(out, resources.ControlPlaneTaint+":NoSchedule")
	}
	return append(out, n.Taints...)
}

// registerTaints writes taints as the kubelet's --register-with-taints
// reads them: always "key=value:Effect", the value possibly empty.
func registerTaints(taints []string) []string {
	out := make([]string, len(taints))
	for i, t := range taints {
		kv, effect, _ := strings.Cut(t, ":")
		if !strings.Contains(kv, "=") {
			kv += "="
		}
		out[i] = kv + ":" + effect
	}
	return out
}

// taintID is what makes a taint the same on a Node, "key:Effect", and
// kubectl taint's argument (with "-") that removes it (kubectl refuses a
// value in a removal).
func taintID(taint string) string {
	kv, effect, _ := strings.Cut(taint, ":")
	return taintKey(kv) + ":" + effect
}

// taintKey is a taint's key.
func taintKey(taint string) string {
	kv, _, _ := strings.Cut(taint, ":")
	key, _, _ := strings.Cut(kv, "=")
	return key
}
