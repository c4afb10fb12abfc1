package infrastructure_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/controllers/infrastructure"
	"github.com/eggo-project/eggo/capi/internal/testenv"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// TestReleaseAfterNodeRemoval: a deleted SSHMachine whose node eggo
// never recorded releases its host at once; one whose node the
// EggoCluster lists (provisioned, or left Pending) keeps its finalizer
// and its host's claim, the host Cleaning, until status.nodes no longer
// lists the node or the EggoCluster is gone, destroyed: eggo's destroy
// Job seen running last (one that failed is not enough); then the host
// is Available again, with no claim.
func TestReleaseAfterNodeRemoval(t *testing.T) {
	n := startNodeEnv(t, "node-release", 3)
	hosts := map[string]string{"m1": n.machine("m1"), "m2": n.machine("m2"), "m3": n.machine("m3")}
	n.finalizedEggoCluster(eggov1.DeletionDestroy)
	n.nodes("m1", "Applied (5 resources)", "m2", "Pending (1 of 4 resources pending)")
	testenv.Eventually(t, 30*time.Second, "m1 provisioned", func() (bool, string) {
		sm := n.get("m1")
		return isProvisioned(sm), describe(sm)
	})

	// m3 was never in eggo's state: released once no Job runs that may
	// be installing onto it, and then at once.
	n.activeJob("c1-apply-1")
	n.delete("m3")
	n.waitingForRemoval(t, "m3", hosts["m3"])
	n.activeJob("")
	n.released(t, "m3", hosts["m3"], 30*time.Second)

	// m1 is provisioned and listed: held until eggo removed its node.
	n.delete("m1")
	uid := n.waitingForRemoval(t, "m1", hosts["m1"])
	testenv.Consistently(t, 2*time.Second, "m1 and its claim held while its node is listed", func() (bool, string) {
		h := n.host(hosts["m1"])
		return !n.gone("m1") && h.Spec.ClaimRef != nil && h.Spec.ClaimRef.MachineUID == uid &&
			h.Status.Phase == infrav1.SSHHostCleaning, describeHost(h)
	})
	n.nodes("m2", "Pending (1 of 4 resources pending)")
	n.released(t, "m1", hosts["m1"], 30*time.Second)
	if h := n.host(hosts["m1"]); !meta.IsStatusConditionTrue(h.Status.Conditions, infrav1.SSHHostCleanCondition) {
		t.Errorf("m1's host after the node's removal: %s", describeHost(h))
	}

	// m2 never provisioned but listed Pending: held until the
	// EggoCluster is gone, destroyed (a destroy Job failed, a second one
	// succeeded: the GitOps controller drops its finalizer).
	n.delete("m2")
	n.waitingForRemoval(t, "m2", hosts["m2"])
	n.deleteEggoCluster()
	n.destroyJob("c1-destroy")
	n.seen(t, "Destroy/c1-destroy", "m2")
	n.destroyJob("")
	n.seen(t, "", "m2")
	n.destroyJob("c1-destroy-r1")
	n.seen(t, "Destroy/c1-destroy-r1", "m2")
	n.dropFinalizer()
	n.released(t, "m2", hosts["m2"], 30*time.Second)
	if h := n.host(hosts["m2"]); !meta.IsStatusConditionTrue(h.Status.Conditions, infrav1.SSHHostCleanCondition) {
		t.Errorf("m2's host after the EggoCluster's destroy: %s", describeHost(h))
	}
}

// TestNeedsCleanupAfterOrphan: two SSHMachines whose nodes eggo
// applied, one deleted while the EggoCluster lists its node (m1), one
// once the EggoCluster is gone (m2, as the control plane deletes its
// Machines), the EggoCluster deleted with deletionPolicy Orphan: each
// host goes NeedsCleanup, with no claim and Clean=False saying why and
// how to clear it, never Available. No new SSHMachine claims them (m4
// waits while m3 takes the free host) until an admin removes the phase
// of one: that one is Available (Clean) again, and m4 takes it.
func TestNeedsCleanupAfterOrphan(t *testing.T) {
	n := startNodeEnv(t, "node-orphan", 3)
	hosts := map[string]string{"m1": n.machine("m1"), "m2": n.machine("m2")}
	n.finalizedEggoCluster(eggov1.DeletionOrphan)
	n.nodes("m1", "Applied (5 resources)", "m2", "Applied (5 resources)")
	testenv.Eventually(t, 30*time.Second, "m1 and m2 provisioned", func() (bool, string) {
		m1, m2 := n.get("m1"), n.get("m2")
		return isProvisioned(m1) && isProvisioned(m2), describe(m1) + "; " + describe(m2)
	})
	n.delete("m1")
	n.waitingForRemoval(t, "m1", hosts["m1"])
	n.deleteEggoCluster()
	n.seen(t, "Orphan", "m1", "m2")
	n.dropFinalizer()
	n.needsCleanup(t, "m1", hosts["m1"], "deleted with deletionPolicy Orphan")
	n.delete("m2")
	n.needsCleanup(t, "m2", hosts["m2"], "deleted with deletionPolicy Orphan")

	n.machine("m3") // the one free host
	n.newMachine("m4", "c1", pool, false)
	noHost := func() (bool, string) {
		for _, name := range hosts {
			if h := n.host(name); h.Spec.ClaimRef != nil || h.Status.Phase != infrav1.SSHHostNeedsCleanup {
				return false, describeHost(h)
			}
		}
		sm := n.get("m4")
		c := meta.FindStatusCondition(sm.Status.Conditions, infrav1.SSHMachineHostClaimedCondition)
		return c != nil && c.Reason == infrastructure.NoHostAvailableReason && sm.Annotations[infrav1.HostAnnotation] == "", describe(sm)
	}
	testenv.Eventually(t, 30*time.Second, "m4 finds no host", noHost)
	testenv.Consistently(t, 3*time.Second, "m4 claims no host that needs cleaning", noHost)

	// The admin cleaned m1's host and removes its phase, as its Clean
	// condition says.
	h := n.host(hosts["m1"])
	must(t, n.e.Client.Status().Patch(testenv.Ctx(t, 10*time.Second), h,
		client.RawPatch(types.JSONPatchType, []byte(`[{"op":"remove","path":"/status/phase"}]`))))
	testenv.Eventually(t, 30*time.Second, "m4 takes the cleared host", func() (bool, string) {
		sm, h := n.get("m4"), n.host(hosts["m1"])
		c := meta.FindStatusCondition(h.Status.Conditions, infrav1.SSHHostCleanCondition)
		return sm.Spec.ProviderID != "" && h.Spec.ClaimRef != nil && h.Spec.ClaimRef.MachineUID == string(sm.UID) &&
			c != nil && c.Status == metav1.ConditionTrue && c.Reason == infrastructure.ClearedReason, describe(sm) + "; " + describeHost(h)
	})
	if h := n.host(hosts["m2"]); h.Spec.ClaimRef != nil || h.Status.Phase != infrav1.SSHHostNeedsCleanup {
		t.Errorf("m2's host, not cleared: %s", describeHost(h))
	}
}

// TestNeedsCleanupAfterFailedDestroy: the EggoCluster deleted with
// deletionPolicy Destroy, its destroy Job failed, its finalizer then
// removed by hand: eggo was not seen destroying it, so the host of the
// provisioned SSHMachine goes NeedsCleanup, not Available.
func TestNeedsCleanupAfterFailedDestroy(t *testing.T) {
	n := startNodeEnv(t, "node-destroy-failed", 1)
	host := n.machine("m1")
	n.finalizedEggoCluster(eggov1.DeletionDestroy)
	n.nodes("m1", "Applied (5 resources)")
	testenv.Eventually(t, 30*time.Second, "m1 provisioned", func() (bool, string) {
		sm := n.get("m1")
		return isProvisioned(sm), describe(sm)
	})
	n.deleteEggoCluster()
	n.destroyJob("c1-destroy")
	n.seen(t, "Destroy/c1-destroy", "m1")
	n.destroyJob("") // it failed
	n.seen(t, "", "m1")
	n.dropFinalizer()
	n.delete("m1")
	n.needsCleanup(t, "m1", host, "eggo was not seen destroying it")
}

// activeJob sets the EggoCluster c1's status.activeJob ("" : none).
func (n *nodeEnv) activeJob(job string) {
	ec := &eggov1.EggoCluster{}
	must(n.t, n.e.Client.Get(testenv.Ctx(n.t, 10*time.Second), client.ObjectKey{Namespace: n.ns, Name: "c1"}, ec))
	ec.Status.ActiveJob = job
	must(n.t, n.e.Client.Status().Update(testenv.Ctx(n.t, 10*time.Second), ec))
}

func (n *nodeEnv) delete(name string) {
	must(n.t, n.e.Client.Delete(testenv.Ctx(n.t, 10*time.Second), &infrav1.SSHMachine{ObjectMeta: metav1.ObjectMeta{Namespace: n.ns, Name: name}}))
}

// waitingForRemoval waits until the deleted SSHMachine name says it
// waits for its node's removal and its host (still claimed by it) is
// Cleaning; it returns the machine's UID.
func (n *nodeEnv) waitingForRemoval(t *testing.T, name, host string) string {
	t.Helper()
	var uid string
	testenv.Eventually(t, 30*time.Second, name+" waits for its node's removal", func() (bool, string) {
		if n.gone(name) {
			t.Fatalf("%s is gone: released without waiting for its node's removal: %s", name, describeHost(n.host(host)))
		}
		sm, h := n.get(name), n.host(host)
		uid = string(sm.UID)
		ready := meta.FindStatusCondition(sm.Status.Conditions, infrav1.ReadyCondition)
		waiting := !sm.DeletionTimestamp.IsZero() && ready != nil && ready.Status == metav1.ConditionFalse &&
			ready.Reason == infrastructure.WaitingForNodeRemovalReason
		held := h.Spec.ClaimRef != nil && h.Spec.ClaimRef.MachineUID == uid && h.Status.Phase == infrav1.SSHHostCleaning
		return waiting && held, describe(sm) + "; " + describeHost(h)
	})
	return uid
}

// released waits until the SSHMachine name is gone and host is
// Available, with no claim.
func (n *nodeEnv) released(t *testing.T, name, host string, within time.Duration) {
	t.Helper()
	testenv.Eventually(t, within, name+" gone and "+host+" Available", func() (bool, string) {
		h := n.host(host)
		return n.gone(name) && h.Spec.ClaimRef == nil && h.Status.Phase == infrav1.SSHHostAvailable, describeHost(h)
	})
}

// destroyJob sets the EggoCluster c1's status.activeJob to the destroy
// Job job ("": none, it ended).
func (n *nodeEnv) destroyJob(job string) {
	ec := &eggov1.EggoCluster{}
	must(n.t, n.e.Client.Get(testenv.Ctx(n.t, 10*time.Second), client.ObjectKey{Namespace: n.ns, Name: "c1"}, ec))
	ec.Status.ActiveJob, ec.Status.ActiveJobPhase = job, ""
	if job != "" {
		ec.Status.ActiveJobPhase = eggov1.PhaseDestroy
	}
	must(n.t, n.e.Client.Status().Update(testenv.Ctx(n.t, 10*time.Second), ec))
}

// finalizedEggoCluster creates the EggoCluster c1 with the GitOps
// controller's finalizer and deletionPolicy policy.
func (n *nodeEnv) finalizedEggoCluster(policy eggov1.DeletionPolicy) {
	n.eggoCluster()
	ec := &eggov1.EggoCluster{}
	must(n.t, n.e.Client.Get(testenv.Ctx(n.t, 10*time.Second), client.ObjectKey{Namespace: n.ns, Name: "c1"}, ec))
	ec.Finalizers, ec.Spec.DeletionPolicy = []string{eggov1.Finalizer}, policy
	must(n.t, n.e.Client.Update(testenv.Ctx(n.t, 10*time.Second), ec))
}

func (n *nodeEnv) deleteEggoCluster() {
	must(n.t, n.e.Client.Delete(testenv.Ctx(n.t, 10*time.Second), &eggov1.EggoCluster{ObjectMeta: metav1.ObjectMeta{Namespace: n.ns, Name: "c1"}}))
}

// dropFinalizer removes the deleted EggoCluster c1's finalizer, as the
// GitOps controller does after a destroy Job succeeded (or with
// deletionPolicy Orphan), or an admin by hand: it is gone then.
func (n *nodeEnv) dropFinalizer() {
	ec := &eggov1.EggoCluster{}
	must(n.t, n.e.Client.Get(testenv.Ctx(n.t, 10*time.Second), client.ObjectKey{Namespace: n.ns, Name: "c1"}, ec))
	ec.Finalizers = nil
	must(n.t, n.e.Client.Update(testenv.Ctx(n.t, 10*time.Second), ec))
}

// seen waits until each SSHMachine of names records how it saw the
// EggoCluster deleted as want ("": no record).
func (n *nodeEnv) seen(t *testing.T, want string, names ...string) {
	t.Helper()
	for _, name := range names {
		testenv.Eventually(t, 30*time.Second, name+" records the EggoCluster's deletion as "+want, func() (bool, string) {
			sm := n.get(name)
			return sm.Annotations[infrastructure.DeletionAnnotation] == want, describe(sm) + fmt.Sprintf(" %v", sm.Annotations)
		})
	}
}

// needsCleanup waits until the SSHMachine name is gone and host, with no
// claim, is NeedsCleanup: Clean=False (Orphaned), its message saying why
// and how an admin clears it.
func (n *nodeEnv) needsCleanup(t *testing.T, name, host, why string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, name+" gone and "+host+" NeedsCleanup", func() (bool, string) {
		h := n.host(host)
		c := meta.FindStatusCondition(h.Status.Conditions, infrav1.SSHHostCleanCondition)
		ok := n.gone(name) && h.Spec.ClaimRef == nil && h.Status.Phase == infrav1.SSHHostNeedsCleanup && c != nil &&
			c.Status == metav1.ConditionFalse && c.Reason == infrastructure.OrphanedReason
		for _, s := range []string{why, "Kubernetes is still installed", "kubectl patch sshhost " + host + " --subresource=status"} {
			ok = ok && strings.Contains(c.Message, s)
		}
		if c != nil {
			return ok, describeHost(h) + " " + c.Message
		}
		return ok, describeHost(h)
	})
}
