package jobrun

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// requireKubeBackend refuses a configuration whose state would stay in the
// Job's emptyDir and be lost with its pod: a Job's configuration must keep
// its state in the management cluster, with `backend "kubernetes"` (in a
// pod it defaults to the Job's ServiceAccount and namespace), which also
// gives every run the state's Lease: the second guard, after the
// controller's one Job at a time, against two runs at once.
//
// The backend may name no namespace but the state namespace the Job was
// given (it reaches Secrets nowhere else): it is KUBE_NAMESPACE to eggo.
func requireKubeBackend(src []byte, stateNamespace string) error {
	f, diags := hclsyntax.ParseConfig(src, "cluster.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		return nil // eggo itself reports the syntax error, at its line
	}
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "backend" && len(b.Labels) == 1 {
			if b.Labels[0] == "kubernetes" {
				return checkBackendNamespace(b.Body, stateNamespace)
			}
			return fmt.Errorf(`the configuration keeps its state in backend %q: a Job needs backend "kubernetes", or the state is lost with the Job's pod`, b.Labels[0])
		}
	}
	return fmt.Errorf(`the configuration has no backend "kubernetes" block: without it the state would be a file in the Job's pod, lost when the pod goes`)
}

// checkBackendNamespace: a namespace in the backend block, if any, is the
// state namespace, written as a string.
func checkBackendNamespace(body *hclsyntax.Body, stateNamespace string) error {
	attr, ok := body.Attributes["namespace"]
	if !ok {
		return nil
	}
	v, diags := attr.Expr.Value(nil)
	if !diags.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() && v.AsString() == stateNamespace {
		return nil
	}
	return fmt.Errorf(`cluster.hcl:%d: the backend's namespace must be left out, or be %q: a Job keeps its state in the namespace the platform admin gave this namespace's state, and may reach Secrets nowhere else`,
		attr.SrcRange.Start.Line, stateNamespace)
}
