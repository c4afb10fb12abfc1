package infrastructure_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bootstrapv1 "github.com/eggo-project/eggo/capi/api/bootstrap/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/controllers/infrastructure"
	"github.com/eggo-project/eggo/capi/internal/testenv"
)

// TestSSHClusterControlPlaneHost: an SSHCluster with a
// controlPlaneHostSelector reserves a host (purpose ControlPlaneEndpoint,
// no machine), its endpoint <address>:6443, provisioned. A worker never
// takes it, even when its selector matches; the first control-plane
// machine does (its machineName/UID set on the same claim), and the next
// one takes a host of its own selector. A control-plane machine whose
// SSHCluster has not reserved its host yet waits rather than take
// another. A deleted machine gives the host back to the SSHCluster
// (Claimed, no machine); a deleted SSHCluster releases it, and waits for
// a machine still on it first.
func TestSSHClusterControlPlaneHost(t *testing.T) {
	n := startNodeEnv(t, "sshcluster-cp", 2) // h0, h1 in pool p1
	ctx := testenv.Ctx(t, time.Minute)
	must(t, n.e.Client.Create(ctx, host(n.ns, "cp0", "cp", nil)))
	c1 := n.cluster("c1")
	n.newSSHCluster("c1", c1, infrav1.SSHClusterSpec{ControlPlaneHostSelector: &infrav1.HostSelector{Pool: "cp"}}, false)
	n.holdsHost(t, "c1", "cp0", infrav1.ClaimControlPlaneEndpoint)
	n.provisioned(t, "c1", infrastructure.HostClaimedReason, n.host("cp0").Spec.Address, 6443)

	n.newMachine("w1", "c1", "cp", false)
	testenv.Eventually(t, 30*time.Second, "worker w1 finds no host", func() (bool, string) {
		sm := n.get("w1")
		return hostClaimedReason(sm) == infrastructure.NoHostAvailableReason, describe(sm)
	})
	testenv.Consistently(t, 2*time.Second, "the worker leaves cp0 alone", func() (bool, string) {
		h := n.host("cp0")
		return h.Spec.ClaimRef != nil && h.Spec.ClaimRef.MachineUID == "", describeHost(h)
	})

	n.newMachine("m1", "c1", pool, true)
	n.takes(t, "m1", "cp0", c1, infrav1.ClaimControlPlaneEndpoint)
	n.newMachine("m2", "c1", pool, true)
	n.takes(t, "m2", "h0", c1, infrav1.ClaimMachine)

	// A control-plane machine waits for its SSHCluster's reservation.
	must(t, n.e.Client.Create(ctx, host(n.ns, "cp1", "cp2", nil)))
	c2 := n.cluster("c2")
	n.newSSHCluster("c2", c2, infrav1.SSHClusterSpec{ControlPlaneHostSelector: &infrav1.HostSelector{Pool: "cp2"}}, true)
	n.newMachine("m3", "c2", pool, true)
	testenv.Eventually(t, 30*time.Second, "m3 waits for the endpoint host", func() (bool, string) {
		sm := n.get("m3")
		return hostClaimedReason(sm) == infrastructure.WaitingForEndpointHostReason, describe(sm)
	})
	testenv.Consistently(t, 2*time.Second, "m3 leaves h1 alone", func() (bool, string) {
		h := n.host("h1")
		return h.Spec.ClaimRef == nil, describeHost(h)
	})
	must(t, n.e.Client.Patch(ctx, &infrav1.SSHCluster{ObjectMeta: metav1.ObjectMeta{Namespace: n.ns, Name: "c2"}},
		client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"cluster.x-k8s.io/paused":null}}}`))))
	n.takes(t, "m3", "cp1", c2, infrav1.ClaimControlPlaneEndpoint)

	// m1 goes (eggo never had its node): cp0 is c1's again, for the next
	// master, and never free in between; then c1 goes and releases it.
	freed := n.watchFreed(t, "cp0")
	n.delete("m1")
	testenv.Eventually(t, 30*time.Second, "m1 gone, cp0 reserved again", func() (bool, string) {
		h := n.host("cp0")
		want := infrav1.SSHHostClaim{ClusterName: "c1", ClusterUID: string(c1.UID), Purpose: infrav1.ClaimControlPlaneEndpoint}
		return n.gone("m1") && h.Spec.ClaimRef != nil && *h.Spec.ClaimRef == want && h.Status.Phase == infrav1.SSHHostClaimed, describeHost(h)
	})
	if freed.Load() {
		t.Errorf("cp0 was free (no claimRef) between m1's release and c1's deletion")
	}
	n.delete("w1") // else it would take cp0 once released
	testenv.Eventually(t, 30*time.Second, "w1 gone", func() (bool, string) { return n.gone("w1"), "" })
	n.deleteSSHCluster("c1")
	n.releasedBySSHCluster(t, "c1", "cp0")

	// c2 goes while m3 is on cp1: it waits for m3.
	n.deleteSSHCluster("c2")
	testenv.Eventually(t, 30*time.Second, "c2 waits for m3", func() (bool, string) {
		if n.sshClusterGone("c2") {
			t.Fatalf("c2 is gone while m3 holds its endpoint host: %s", describeHost(n.host("cp1")))
		}
		sc := n.sshCluster("c2")
		return sshClusterReason(sc) == infrastructure.WaitingForMachineReleaseReason, describeSSHCluster(sc)
	})
	testenv.Consistently(t, 2*time.Second, "m3 keeps cp1", func() (bool, string) {
		h := n.host("cp1")
		return !n.sshClusterGone("c2") && h.Spec.ClaimRef != nil && h.Spec.ClaimRef.MachineName == "m3", describeHost(h)
	})
	n.delete("m3")
	n.releasedBySSHCluster(t, "c2", "cp1")
}

// newMachine makes the Machine name of cluster (a control-plane one when
// cp; with its bootstrap data) and its SSHMachine selecting pool.
func (n *nodeEnv) newMachine(name, cluster, pool string, cp bool) {
	t, c, ctx := n.t, n.e.Client, testenv.Ctx(n.t, time.Minute)
	labels := map[string]string{clusterv1.ClusterNameLabel: cluster}
	if cp {
		labels[clusterv1.MachineControlPlaneLabel] = ""
	}
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: n.ns, Name: name, Labels: labels},
		Spec: clusterv1.MachineSpec{ClusterName: cluster, Version: "v1.36.5",
			Bootstrap: clusterv1.Bootstrap{DataSecretName: ptr.To(name), ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: bootstrapv1.GroupVersion.Group, Kind: "EggoConfig", Name: name}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: infrav1.GroupVersion.Group, Kind: "SSHMachine", Name: name}}}
	must(t, c.Create(ctx, m))
	must(t, c.Create(ctx, &infrav1.SSHMachine{ObjectMeta: metav1.ObjectMeta{Namespace: n.ns, Name: name,
		Labels: map[string]string{clusterv1.ClusterNameLabel: cluster},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine",
			Name: m.Name, UID: m.UID, Controller: ptr.To(true)}}},
		Spec: infrav1.SSHMachineSpec{HostSelector: infrav1.HostSelector{Pool: pool}}}))
}

// takes waits until the SSHMachine name holds host with purpose (its
// claim naming cluster, its providerID that host's).
func (n *nodeEnv) takes(t *testing.T, name, host string, cluster *clusterv1.Cluster, purpose infrav1.ClaimPurpose) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, name+" takes "+host, func() (bool, string) {
		sm, h := n.get(name), n.host(host)
		want := infrav1.SSHHostClaim{ClusterName: cluster.Name, ClusterUID: string(cluster.UID), Purpose: purpose,
			MachineName: name, MachineUID: string(sm.UID)}
		return sm.Annotations[infrav1.HostAnnotation] == host && h.Spec.ClaimRef != nil && *h.Spec.ClaimRef == want &&
			sm.Spec.ProviderID == "eggo://"+n.ns+"/"+host+"/"+string(sm.UID), describe(sm) + "; " + describeHost(h)
	})
}

// releasedBySSHCluster waits until the SSHCluster name is gone and host
// Available, with no claim.
func (n *nodeEnv) releasedBySSHCluster(t *testing.T, name, host string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, name+" gone and "+host+" Available", func() (bool, string) {
		h := n.host(host)
		return n.sshClusterGone(name) && h.Spec.ClaimRef == nil && h.Status.Phase == infrav1.SSHHostAvailable, describeHost(h)
	})
}

// watchFreed watches the SSHHost name from now on and reports whether
// any version of it the server sends has no claimRef. A watch the server
// ends (an apiserver whose watch cache lags answers "Too large resource
// version") resumes from the last version seen: nothing is missed.
func (n *nodeEnv) watchFreed(t *testing.T, name string) *atomic.Bool {
	t.Helper()
	wc, err := client.NewWithWatch(n.e.API.Config, client.Options{Scheme: n.e.Scheme})
	must(t, err)
	list := &infrav1.SSHHostList{}
	must(t, wc.List(testenv.Ctx(t, 10*time.Second), list, client.InNamespace(n.ns)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	freed := &atomic.Bool{}
	go func() {
		defer close(done)
		for rv := list.ResourceVersion; ctx.Err() == nil; time.Sleep(100 * time.Millisecond) {
			w, err := wc.Watch(ctx, &infrav1.SSHHostList{}, client.InNamespace(n.ns),
				&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv}})
			if err != nil {
				continue
			}
			for ev := range w.ResultChan() {
				h, ok := ev.Object.(*infrav1.SSHHost)
				if !ok || ev.Type == watch.Error {
					break
				}
				rv = h.ResourceVersion
				if h.Name == name && h.Spec.ClaimRef == nil {
					freed.Store(true)
				}
			}
			w.Stop()
		}
	}()
	return freed
}

// hostClaimedReason is the reason of sm's HostClaimed condition.
func hostClaimedReason(sm *infrav1.SSHMachine) string {
	for _, c := range sm.Status.Conditions {
		if c.Type == infrav1.SSHMachineHostClaimedCondition {
			return c.Reason
		}
	}
	return ""
}
