package infrastructure_test

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/controllers/infrastructure"
	"github.com/eggo-project/eggo/capi/internal/testenv"
)

// TestSSHClusterGivenEndpoint: an SSHCluster with its endpoint given
// waits for its Cluster owner, then is provisioned at once (EndpointReady
// and Ready True) behind its finalizer, and goes when deleted.
func TestSSHClusterGivenEndpoint(t *testing.T) {
	n := startNodeEnv(t, "sshcluster-given", 0)
	sc := &infrav1.SSHCluster{ObjectMeta: metav1.ObjectMeta{Namespace: n.ns, Name: "c1"},
		Spec: infrav1.SSHClusterSpec{ControlPlaneEndpoint: clusterv1.APIEndpoint{Host: "api.example.com", Port: 443}}}
	must(t, n.e.Client.Create(testenv.Ctx(t, 10*time.Second), sc))
	testenv.Consistently(t, 2*time.Second, "no Cluster owner: not provisioned", func() (bool, string) {
		sc := n.sshCluster("c1")
		return sc.Status.Initialization.Provisioned == nil, describeSSHCluster(sc)
	})
	// Core sets the owner.
	c1 := n.cluster("c1")
	sc = n.sshCluster("c1")
	sc.OwnerReferences = []metav1.OwnerReference{clusterOwner(c1)}
	must(t, n.e.Client.Update(testenv.Ctx(t, 10*time.Second), sc))
	n.provisioned(t, "c1", infrastructure.EndpointGivenReason, "api.example.com", 443)
	if sc := n.sshCluster("c1"); !controllerutil.ContainsFinalizer(sc, infrastructure.ClusterFinalizer) {
		t.Errorf("provisioned without its finalizer: %v", sc.Finalizers)
	}
	n.deleteSSHCluster("c1")
	testenv.Eventually(t, 30*time.Second, "c1 gone", func() (bool, string) { return n.sshClusterGone("c1"), "" })
}

// TestSSHClusterLoadBalancerClaim: two SSHClusters whose loadBalancer
// selects one pool with a single free host: exactly one claims it (the
// claim names its Cluster by UID, purpose LoadBalancer, no machine) and
// gets the endpoint <address>:6443 and provisioned; the other waits
// NoHostAvailable until one more host is created, and the SSHHost watch
// (not the 30 s requeue) hands it that one. A paused SSHCluster claims
// nothing until unpaused.
func TestSSHClusterLoadBalancerClaim(t *testing.T) {
	n := startNodeEnv(t, "sshcluster-lb", 0)
	ctx := testenv.Ctx(t, time.Minute)
	must(t, n.e.Client.Create(ctx, host(n.ns, "lb0", "lb", nil)))
	must(t, n.e.Client.Create(ctx, host(n.ns, "a-other-pool", "p2", nil)))
	lb := &infrav1.SSHLoadBalancer{HostSelector: infrav1.HostSelector{Pool: "lb"}}
	for _, name := range []string{"c1", "c2"} {
		n.newSSHCluster(name, n.cluster(name), infrav1.SSHClusterSpec{LoadBalancer: lb}, false)
	}
	var winner, loser string
	testenv.Eventually(t, time.Minute, "one claims lb0, the other waits", func() (bool, string) {
		h := n.host("lb0")
		winner, loser = "c1", "c2"
		if h.Spec.ClaimRef != nil && h.Spec.ClaimRef.ClusterName == "c2" {
			winner, loser = "c2", "c1"
		}
		w, l := n.sshCluster(winner), n.sshCluster(loser)
		return isSSHClusterProvisioned(w) && sshClusterReason(l) == infrastructure.NoHostAvailableReason,
			describeSSHCluster(w) + "; " + describeSSHCluster(l) + "; " + describeHost(h)
	})
	n.holdsHost(t, winner, "lb0", infrav1.ClaimLoadBalancer)
	n.provisioned(t, winner, infrastructure.HostClaimedReason, n.host("lb0").Spec.Address, infrav1.LoadBalancerPort)
	testenv.Consistently(t, 2*time.Second, loser+" waits", func() (bool, string) {
		l := n.sshCluster(loser)
		return !isSSHClusterProvisioned(l) && sshClusterReason(l) == infrastructure.NoHostAvailableReason &&
			meta.IsStatusConditionFalse(l.Status.Conditions, infrav1.SSHClusterEndpointReadyCondition) &&
			n.host("a-other-pool").Spec.ClaimRef == nil, describeSSHCluster(l)
	})

	must(t, n.e.Client.Create(ctx, host(n.ns, "lb1", "lb", nil)))
	testenv.Eventually(t, 20*time.Second, loser+" claims lb1", func() (bool, string) {
		l := n.sshCluster(loser)
		return isSSHClusterProvisioned(l), describeSSHCluster(l) + "; " + describeHost(n.host("lb1"))
	})
	n.holdsHost(t, loser, "lb1", infrav1.ClaimLoadBalancer)
	n.provisioned(t, loser, infrastructure.HostClaimedReason, n.host("lb1").Spec.Address, infrav1.LoadBalancerPort)

	// Paused: no claim, though a host is free; unpaused: claimed.
	must(t, n.e.Client.Create(ctx, host(n.ns, "lb2", "lb", nil)))
	n.newSSHCluster("c3", n.cluster("c3"), infrav1.SSHClusterSpec{LoadBalancer: lb}, true)
	testenv.Eventually(t, 30*time.Second, "c3 Paused", func() (bool, string) {
		sc := n.sshCluster("c3")
		return meta.IsStatusConditionTrue(sc.Status.Conditions, clusterv1.PausedCondition), describeSSHCluster(sc)
	})
	testenv.Consistently(t, 2*time.Second, "paused c3 claims nothing", func() (bool, string) {
		sc, h := n.sshCluster("c3"), n.host("lb2")
		return h.Spec.ClaimRef == nil && sc.Annotations[infrav1.HostAnnotation] == "" && !isSSHClusterProvisioned(sc), describeHost(h)
	})
	must(t, n.e.Client.Patch(ctx, &infrav1.SSHCluster{ObjectMeta: metav1.ObjectMeta{Namespace: n.ns, Name: "c3"}},
		client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"cluster.x-k8s.io/paused":null}}}`))))
	n.holdsHost(t, "c3", "lb2", infrav1.ClaimLoadBalancer)
}

// TestSSHClusterLoadBalancerRelease: a deleted SSHCluster keeps its load
// balancer host claimed, in phase Cleaning (Ready=False
// WaitingForNodeRemoval), while the EggoCluster lists <cluster>-lb, and
// while a Job runs; then the host is Available again, with no claim, and
// the SSHCluster is gone.
func TestSSHClusterLoadBalancerRelease(t *testing.T) {
	n := startNodeEnv(t, "sshcluster-lb-release", 0)
	must(t, n.e.Client.Create(testenv.Ctx(t, 10*time.Second), host(n.ns, "lb0", "lb", nil)))
	c1 := &clusterv1.Cluster{}
	must(t, n.e.Client.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKey{Namespace: n.ns, Name: "c1"}, c1))
	n.newSSHCluster("c1", c1, infrav1.SSHClusterSpec{LoadBalancer: &infrav1.SSHLoadBalancer{
		HostSelector: infrav1.HostSelector{Pool: "lb"}}}, false)
	n.holdsHost(t, "c1", "lb0", infrav1.ClaimLoadBalancer)
	n.eggoCluster()
	n.nodes(infrav1.LoadBalancerNodeName("c1"), "Applied (3 resources)", "m1", "Applied (5 resources)")

	n.deleteSSHCluster("c1")
	held := func(what string) {
		testenv.Eventually(t, 30*time.Second, "c1 waits: "+what, func() (bool, string) {
			if n.sshClusterGone("c1") {
				t.Fatalf("c1 is gone: released without waiting (%s): %s", what, describeHost(n.host("lb0")))
			}
			sc, h := n.sshCluster("c1"), n.host("lb0")
			return sshClusterReason(sc) == infrastructure.WaitingForNodeRemovalReason && h.Spec.ClaimRef != nil &&
				h.Status.Phase == infrav1.SSHHostCleaning, describeSSHCluster(sc) + "; " + describeHost(h)
		})
		testenv.Consistently(t, 2*time.Second, "lb0 held: "+what, func() (bool, string) {
			if n.sshClusterGone("c1") {
				return false, "c1 gone"
			}
			h := n.host("lb0")
			return h.Spec.ClaimRef != nil && h.Status.Phase == infrav1.SSHHostCleaning, describeHost(h)
		})
	}
	held("c1-lb listed")
	n.activeJob("c1-apply-2")
	n.nodes("m1", "Applied (5 resources)")
	held("a Job runs")
	n.activeJob("")
	testenv.Eventually(t, 30*time.Second, "c1 gone and lb0 Available", func() (bool, string) {
		h := n.host("lb0")
		return n.sshClusterGone("c1") && h.Spec.ClaimRef == nil && h.Status.Phase == infrav1.SSHHostAvailable &&
			meta.IsStatusConditionTrue(h.Status.Conditions, infrav1.SSHHostCleanCondition), describeHost(h)
	})
}

// cluster creates the Cluster name (its infrastructureRef the SSHCluster
// name), as the user does, and returns it; an existing one is read.
func (n *nodeEnv) cluster(name string) *clusterv1.Cluster {
	ctx := testenv.Ctx(n.t, 10*time.Second)
	c := &clusterv1.Cluster{}
	if err := n.e.Client.Get(ctx, client.ObjectKey{Namespace: n.ns, Name: name}, c); err == nil {
		return c
	}
	c = &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: n.ns, Name: name},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "SSHCluster", Name: name}}}
	must(n.t, n.e.Client.Create(ctx, c))
	return c
}

func clusterOwner(c *clusterv1.Cluster) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: c.Name, UID: c.UID}
}

// newSSHCluster creates the SSHCluster name owned by c, as core sets it
// (paused: with the paused annotation).
func (n *nodeEnv) newSSHCluster(name string, c *clusterv1.Cluster, spec infrav1.SSHClusterSpec, paused bool) {
	sc := &infrav1.SSHCluster{ObjectMeta: metav1.ObjectMeta{Namespace: n.ns, Name: name,
		Labels:          map[string]string{clusterv1.ClusterNameLabel: c.Name},
		OwnerReferences: []metav1.OwnerReference{clusterOwner(c)}}, Spec: spec}
	if paused {
		sc.Annotations = map[string]string{clusterv1.PausedAnnotation: ""}
	}
	must(n.t, n.e.Client.Create(testenv.Ctx(n.t, 10*time.Second), sc))
}

func (n *nodeEnv) sshCluster(name string) *infrav1.SSHCluster {
	sc := &infrav1.SSHCluster{}
	must(n.t, n.e.Client.Get(testenv.Ctx(n.t, 10*time.Second), client.ObjectKey{Namespace: n.ns, Name: name}, sc))
	return sc
}

func (n *nodeEnv) sshClusterGone(name string) bool {
	err := n.e.Client.Get(testenv.Ctx(n.t, 10*time.Second), client.ObjectKey{Namespace: n.ns, Name: name}, &infrav1.SSHCluster{})
	return err != nil && client.IgnoreNotFound(err) == nil
}

func (n *nodeEnv) deleteSSHCluster(name string) {
	must(n.t, n.e.Client.Delete(testenv.Ctx(n.t, 10*time.Second), &infrav1.SSHCluster{ObjectMeta: metav1.ObjectMeta{Namespace: n.ns, Name: name}}))
}

// holdsHost waits until the SSHCluster name holds host (its annotation
// names it; the claim names its Cluster by name and UID, with purpose
// and no machine; phase Claimed).
func (n *nodeEnv) holdsHost(t *testing.T, name, host string, purpose infrav1.ClaimPurpose) {
	t.Helper()
	c := n.cluster(n.sshCluster(name).OwnerReferences[0].Name)
	testenv.Eventually(t, 30*time.Second, name+" holds "+host, func() (bool, string) {
		sc, h := n.sshCluster(name), n.host(host)
		want := infrav1.SSHHostClaim{ClusterName: c.Name, ClusterUID: string(c.UID), Purpose: purpose}
		return sc.Annotations[infrav1.HostAnnotation] == host && h.Spec.ClaimRef != nil && *h.Spec.ClaimRef == want &&
			h.Status.Phase == infrav1.SSHHostClaimed, describeSSHCluster(sc) + "; " + describeHost(h)
	})
}

// provisioned waits until the SSHCluster name is provisioned with the
// endpoint host:port, EndpointReady and Ready True (reason).
func (n *nodeEnv) provisioned(t *testing.T, name, reason, host string, port int32) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, name+" provisioned", func() (bool, string) {
		sc := n.sshCluster(name)
		ready := meta.FindStatusCondition(sc.Status.Conditions, infrav1.ReadyCondition)
		ep := meta.FindStatusCondition(sc.Status.Conditions, infrav1.SSHClusterEndpointReadyCondition)
		return isSSHClusterProvisioned(sc) && sc.Spec.ControlPlaneEndpoint == clusterv1.APIEndpoint{Host: host, Port: port} &&
			ready != nil && ready.Status == metav1.ConditionTrue && ready.Reason == reason &&
			ep != nil && ep.Status == metav1.ConditionTrue, describeSSHCluster(sc)
	})
}

func isSSHClusterProvisioned(sc *infrav1.SSHCluster) bool {
	return sc.Status.Initialization.Provisioned != nil && *sc.Status.Initialization.Provisioned
}

// sshClusterReason is the reason of sc's Ready condition when False.
func sshClusterReason(sc *infrav1.SSHCluster) string {
	if c := meta.FindStatusCondition(sc.Status.Conditions, infrav1.ReadyCondition); c != nil && c.Status == metav1.ConditionFalse {
		return c.Reason
	}
	return ""
}

func describeSSHCluster(sc *infrav1.SSHCluster) string {
	var conds []string
	for _, c := range sc.Status.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s/%s %q", c.Type, c.Status, c.Reason, c.Message))
	}
	return fmt.Sprintf("sshcluster %s host=%q endpoint=%v provisioned=%v deleting=%v %v", sc.Name,
		sc.Annotations[infrav1.HostAnnotation], sc.Spec.ControlPlaneEndpoint, sc.Status.Initialization.Provisioned,
		!sc.DeletionTimestamp.IsZero(), conds)
}
