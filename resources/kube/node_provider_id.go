package kube

import (
	"encoding/json"
	"fmt"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// A Node's spec.providerID is set once: the kubelet registers it
// (--provider-id), and the API server lets it change only from "" to a
// value. So a node's provider_id is refused at plan once the Node has
// another, and set by k8s_node on a Node registered without one (a node
// that had none yet); Cluster API finds the Node by it, and a Machine
// whose ID never matches waits for ever.

// providerIDChanges refuses, at plan, a provider_id other than the one the
// Node has (as recorded and refreshed).
func providerIDChanges(desired resources.Desired, prior resources.Attrs) error {
	want := resources.AttrString(desired.Attrs[k8sNodeProviderID])
	had := resources.AttrString(prior[k8sNodeProviderID])
	if want == "" || had == "" || want == had {
		return nil
	}
	return fmt.Errorf("%s: provider_id %q, but the Node was registered as %q: a Node's spec.providerID is set once; "+
		"remove node %s from the cluster and add it again to give it another", desired.Addr, want, had, desired.Node)
}

// setProviderID is the shell that gives the Node the providerID id when it
// has none, and fails naming both when it has another ("" : nothing).
func setProviderID(kubectl, node, id string) string {
	if id == "" {
		return ""
	}
	js, _ := json.Marshal(id)
	patch := `{"spec":{"providerID":` + string(js) + `}}`
	return fmt.Sprintf(`cur=$(%[1]s get node %[2]s -o jsonpath='{.spec.providerID}')
if [ -z "$cur" ]; then %[1]s patch node %[2]s --type=merge -p %[3]s >/dev/null
elif [ "$cur" != %[4]s ]; then echo "node "%[2]s" was registered with providerID $cur, not "%[4]s": a Node's providerID is set once" >&2; exit 1
fi
`, kubectl, shell.Quote(node), shell.Quote(patch), shell.Quote(id))
}
