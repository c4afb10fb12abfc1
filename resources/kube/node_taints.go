package kube

import (
	"fmt"
	"strings"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// setTaints is the script that keeps a Node's taints as eggo wants them:
// every wanted taint ("key:Effect") set, and every taint eggo set before
// and no longer wants removed (only those: taints of others stay). A
// taint already gone is not an error, so the script can run again.
func setTaints(kubectl, node string, want, had []any) string {
	var b strings.Builder
	wanted := map[string]bool{}
	for _, t := range want {
		taint := resources.AttrString(t)
		wanted[taint] = true
		fmt.Fprintf(&b, "%s taint node %s %s --overwrite >/dev/null\n", kubectl, shell.Quote(node), shell.Quote(taint))
	}
	for _, t := range had {
		taint := resources.AttrString(t)
		if wanted[taint] {
			continue
		}
		key, _, _ := strings.Cut(taint, ":")
		fmt.Fprintf(&b, "if %[1]s get node %[2]s -o jsonpath='{.spec.taints[*].key}' | tr ' ' '\\n' | grep -qxF %[3]s; then %[1]s taint node %[2]s %[4]s >/dev/null; fi\n",
			kubectl, shell.Quote(node), shell.Quote(key), shell.Quote(taint+"-"))
	}
	return b.String()
}
