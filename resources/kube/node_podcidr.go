package kube

import (
	"fmt"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// setPodCIDR is the script that gives a registered Node its pod subnet.
// spec.podCIDR can be set once: a Node that has one keeps it, and one
// other than the state's is an error naming both (eggo never guesses
// which is right).
func setPodCIDR(kubectl, node, subnet string) string {
	if subnet == "" {
		return ""
	}
	patch := fmt.Sprintf(`{"spec":{"podCIDR":%q,"podCIDRs":[%q]}}`, subnet, subnet)
	return fmt.Sprintf(`cur=$(%[1]s get node %[2]s -o jsonpath='{.spec.podCIDR}')
if [ -z "$cur" ]; then
  %[1]s patch node %[2]s --type merge -p %[3]s >/dev/null
elif [ "$cur" != %[4]s ]; then
  echo "node "%[2]s" has podCIDR $cur, the state says "%[4]s": a Node's podCIDR cannot change; remove the node from the configuration, apply, and add it back" >&2
  exit 1
fi
`, kubectl, shell.Quote(node), shell.Quote(patch), shell.Quote(subnet))
}

// podSubnetMoves refuses a plan that would give a Node another pod subnet
// than the one it has: Kubernetes does not let spec.podCIDR change, and
// flannel on that node would keep the old one. It happens when pod_cidr
// changes so that a recorded subnet no longer lies inside it.
func podSubnetMoves(addr string, prior, desired resources.Attrs) error {
	had := resources.AttrString(prior[AttrPodSubnet])
	want := resources.AttrString(desired[AttrPodSubnet])
	if had == "" || had == want {
		return nil
	}
	return fmt.Errorf("%s: its pod subnet would move from %s to %s, and a Node's podCIDR cannot change: keep a pod_cidr that contains %s, or remove the node, apply, and add it back", addr, had, want, had)
}
