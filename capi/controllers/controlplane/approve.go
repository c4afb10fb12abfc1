package controlplane

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cpv1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// The control plane is the approver of its EggoCluster's plans (approval
// Manual): it approves a plan only when what the plan does to each node
// is what the cluster's Machines ask for. A plan that would take away the
// node of a Machine that stays, or touch a node no Machine names, is never
// applied: the writer of the configuration approving its own plans is a
// trust boundary, so the check is exact and per node.

// clusterScope is the summary's name for what belongs to no node.
const clusterScope = "(cluster)"

// Reasons of the Planned condition the control plane sets.
const (
	PlanApprovedReason   = "PlanApproved"
	UnexpectedPlanReason = "UnexpectedPlan"
	WaitingForPlanReason = "WaitingForPlan"
)

// planMachines is what a plan may touch: the nodes of the Machines the
// configuration renders (live) and of the Machines being deleted.
type planMachines struct {
	live     map[string]bool
	deleting map[string]bool
}

// nodeKinds are the kinds whose delete or replace takes a node (or its
// etcd member) out of the cluster.
var nodeKinds = []string{"host.", "k8s_node.", "etcd_member."}

// clusterKinds are the cluster-wide kinds a plan of a living cluster never
// deletes or replaces: the CAs and the service-account key.
var clusterKinds = []string{"pki."}

// judgePlan says why the plan summarised by s may not be approved, or nil.
func judgePlan(s *eggov1.PlanSummary, m planMachines) error {
	if s == nil {
		return fmt.Errorf("the plan has no summary")
	}
	if len(s.Hooks) > 0 {
		return fmt.Errorf("the plan runs hooks (%s): the control plane's configuration declares none", strings.Join(s.Hooks, ", "))
	}
	for _, n := range s.Nodes {
		for _, op := range n.Operations {
			if err := judgeOperation(n.Name, op, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// judgeOperation checks one planned operation ("create host.w0") of node.
func judgeOperation(node, op string, m planMachines) error {
	action, addr, ok := strings.Cut(op, " ")
	if !ok {
		return fmt.Errorf("node %s: unreadable operation %q", node, op)
	}
	removes := action == "delete" || action == "replace"
	switch {
	case node == clusterScope:
		if removes && hasKindPrefix(addr, clusterKinds) {
			return fmt.Errorf("the plan would %s %s, the cluster's own keys", action, addr)
		}
	case m.live[node]:
		if removes && hasKindPrefix(addr, nodeKinds) {
			return fmt.Errorf("the plan would %s %s while Machine %s stays", action, addr, node)
		}
	case m.deleting[node]:
		if action != "delete" {
			return fmt.Errorf("the plan would %s %s of Machine %s, which is being deleted", action, addr, node)
		}
	default:
		return fmt.Errorf("the plan would %s %s of node %s, which no Machine of the cluster names", action, addr, node)
	}
	return nil
}

func hasKindPrefix(addr string, kinds []string) bool {
	for _, k := range kinds {
		if strings.HasPrefix(addr, k) {
			return true
		}
	}
	return false
}

// awaitingApproval is the hash of ec's plan while it waits for approval
// and was made from the EggoCluster's current spec, else "".
func awaitingApproval(ec *eggov1.EggoCluster) string {
	if ec.Status.LastPlanHash == "" || ec.Status.ObservedGeneration != ec.Generation {
		return ""
	}
	if !meta.IsStatusConditionTrue(ec.Status.Conditions, eggov1.ConditionApprovalPending) {
		return ""
	}
	return ec.Status.LastPlanHash
}

// approve approves ec's pending plan when it does what the Machines ask
// (annotation eggo.io/approve-plan, by a merge patch that touches nothing
// else), and says on the control plane's Planned condition what it did.
func (r *Reconciler) approve(ctx context.Context, cp *cpv1.EggoControlPlane, ec *eggov1.EggoCluster, m planMachines) error {
	hash := awaitingApproval(ec)
	if hash == "" {
		if ec.Status.LastPlanHash == "" {
			setCondition(cp, cpv1.PlannedCondition, metav1.ConditionFalse, WaitingForPlanReason, "the EggoCluster has no plan yet")
		}
		return nil
	}
	if err := judgePlan(ec.Status.PlanSummary, m); err != nil {
		setCondition(cp, cpv1.PlannedCondition, metav1.ConditionFalse, UnexpectedPlanReason,
			fmt.Sprintf("plan %s not approved: %v", short(hash), err))
		return nil
	}
	if ec.Annotations[eggov1.ApproveAnnotation] != hash {
		// At the resourceVersion read: the judgement was of that status.
		patch := client.MergeFromWithOptions(ec.DeepCopy(), client.MergeFromWithOptimisticLock{})
		if ec.Annotations == nil {
			ec.Annotations = map[string]string{}
		}
		ec.Annotations[eggov1.ApproveAnnotation] = hash
		if err := r.Patch(ctx, ec, patch); err != nil {
			return fmt.Errorf("approving plan %s: %w", short(hash), err)
		}
	}
	setCondition(cp, cpv1.PlannedCondition, metav1.ConditionTrue, PlanApprovedReason,
		fmt.Sprintf("plan %s approved: it does what the Machines ask", short(hash)))
	return nil
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}
