package infrastructure_test

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
// lists the node or the EggoCluster is gone; then the host is Available
// again, with no claim.
func TestReleaseAfterNodeRemoval(t *testing.T) {
	n := startNodeEnv(t, "node-release", 3)
	hosts := map[string]string{"m1": n.machine("m1"), "m2": n.machine("m2"), "m3": n.machine("m3")}
	n.eggoCluster()
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
	// EggoCluster is gone.
	n.delete("m2")
	n.waitingForRemoval(t, "m2", hosts["m2"])
	must(t, n.e.Client.Delete(testenv.Ctx(t, 10*time.Second), &eggov1.EggoCluster{ObjectMeta: metav1.ObjectMeta{Namespace: n.ns, Name: "c1"}}))
	n.released(t, "m2", hosts["m2"], 30*time.Second)
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
