package infrastructure_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	bootstrapv1 "github.com/eggo-project/eggo/capi/api/bootstrap/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/controllers/infrastructure"
	"github.com/eggo-project/eggo/capi/internal/testenv"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// startEnv is testenv.Start with the EggoCluster CRD (the root's
// controller/config/crd) installed and in the scheme: the SSHMachine
// reconciler watches EggoClusters.
func startEnv(t *testing.T) *testenv.Env {
	t.Helper()
	e := testenv.Start(t)
	must(t, eggov1.AddToScheme(e.Scheme))
	ctx := testenv.Ctx(t, time.Minute)
	for _, crd := range testenv.ReadCRDs(t, filepath.Join(e.ModuleDir, "..", "controller", "config", "crd")) {
		must(t, e.Client.Create(ctx, crd))
	}
	c, err := client.New(e.API.Config, client.Options{Scheme: e.Scheme})
	must(t, err)
	e.Client = c
	testenv.Eventually(t, time.Minute, "EggoClusters served", func() (bool, string) {
		err := c.List(ctx, &eggov1.EggoClusterList{})
		return err == nil, fmt.Sprint(err)
	})
	return e
}

// nodeEnv is a namespace with a Cluster c1, hosts h0…h<n-1> and one
// infrastructure manager running as its generated role. The test plays
// Cluster API core (Machines, their bootstrap data) and the GitOps
// controller (the EggoCluster c1 and its status.nodes).
type nodeEnv struct {
	e  *testenv.Env
	ns string
	t  *testing.T
}

func startNodeEnv(t *testing.T, ns string, hosts int) *nodeEnv {
	e := startEnv(t)
	n := &nodeEnv{e: e, ns: e.API.Namespace(t, ns), t: t}
	ctx := testenv.Ctx(t, time.Minute)
	must(t, e.Client.Create(ctx, &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: n.ns, Name: "c1"},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "SSHCluster", Name: "c1"}}}))
	for i := 0; i < hosts; i++ {
		must(t, e.Client.Create(ctx, host(n.ns, fmt.Sprintf("h%d", i), pool, nil)))
	}
	cfg := e.RoleConfig(t, "infrastructure", "eggo-capi-infrastructure")
	e.StartManager(t, "infra", cfg, func(mgr manager.Manager) error {
		return infrastructure.Setup(mgr, testenv.ControllerOptions())
	})
	return n
}

// machine makes the Machine name (with its bootstrap data already) and
// its SSHMachine, and waits until that holds a host and has its
// providerID; it returns the host's name.
func (n *nodeEnv) machine(name string) string {
	t, c, ctx := n.t, n.e.Client, testenv.Ctx(n.t, time.Minute)
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: n.ns, Name: name,
		Labels: map[string]string{clusterv1.ClusterNameLabel: "c1"}},
		Spec: clusterv1.MachineSpec{ClusterName: "c1", Version: "v1.36.5",
			Bootstrap: clusterv1.Bootstrap{DataSecretName: ptr.To(name), ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: bootstrapv1.GroupVersion.Group, Kind: "EggoConfig", Name: name}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: infrav1.GroupVersion.Group, Kind: "SSHMachine", Name: name}}}
	must(t, c.Create(ctx, m))
	must(t, c.Create(ctx, &infrav1.SSHMachine{ObjectMeta: metav1.ObjectMeta{Namespace: n.ns, Name: name,
		Labels: map[string]string{clusterv1.ClusterNameLabel: "c1"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine",
			Name: m.Name, UID: m.UID, Controller: ptr.To(true)}}},
		Spec: infrav1.SSHMachineSpec{HostSelector: infrav1.HostSelector{Pool: pool}}}))
	var sm *infrav1.SSHMachine
	testenv.Eventually(t, time.Minute, name+" waits for its node with a providerID", func() (bool, string) {
		sm = n.get(name)
		ready := meta.FindStatusCondition(sm.Status.Conditions, infrav1.ReadyCondition)
		return sm.Spec.ProviderID != "" && ready != nil && ready.Reason == infrastructure.WaitingForNodeJoinedReason, describe(sm)
	})
	return sm.Annotations[infrav1.HostAnnotation]
}

func (n *nodeEnv) get(name string) *infrav1.SSHMachine {
	sm := &infrav1.SSHMachine{}
	must(n.t, n.e.Client.Get(testenv.Ctx(n.t, 10*time.Second), client.ObjectKey{Namespace: n.ns, Name: name}, sm))
	return sm
}

// gone says whether the SSHMachine name no longer exists.
func (n *nodeEnv) gone(name string) bool {
	err := n.e.Client.Get(testenv.Ctx(n.t, 10*time.Second), client.ObjectKey{Namespace: n.ns, Name: name}, &infrav1.SSHMachine{})
	return err != nil && client.IgnoreNotFound(err) == nil
}

func (n *nodeEnv) host(name string) *infrav1.SSHHost {
	h := &infrav1.SSHHost{}
	must(n.t, n.e.Client.Get(testenv.Ctx(n.t, 10*time.Second), client.ObjectKey{Namespace: n.ns, Name: name}, h))
	return h
}

// eggoCluster creates the EggoCluster c1, as the control plane would.
func (n *nodeEnv) eggoCluster() {
	inline := "cluster {}"
	must(n.t, n.e.Client.Create(testenv.Ctx(n.t, 10*time.Second), &eggov1.EggoCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: n.ns, Name: "c1"},
		Spec: eggov1.EggoClusterSpec{Config: eggov1.ConfigSource{Inline: &inline}, SSHKeySecretRef: corev1.LocalObjectReference{Name: "key"},
			Bundle: eggov1.BundleSource{Volume: eggov1.BundleVolume{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "b"}}}}}))
}

// nodes publishes status.nodes of the EggoCluster c1 as a run would:
// name, state, name, state…
func (n *nodeEnv) nodes(pairs ...string) {
	ec := &eggov1.EggoCluster{}
	must(n.t, n.e.Client.Get(testenv.Ctx(n.t, 10*time.Second), client.ObjectKey{Namespace: n.ns, Name: "c1"}, ec))
	ec.Status.Nodes = []eggov1.NodeStatus{}
	for i := 0; i+1 < len(pairs); i += 2 {
		ec.Status.Nodes = append(ec.Status.Nodes, eggov1.NodeStatus{Name: pairs[i], State: pairs[i+1]})
	}
	must(n.t, n.e.Client.Status().Update(testenv.Ctx(n.t, 10*time.Second), ec))
}

func isProvisioned(sm *infrav1.SSHMachine) bool {
	return sm.Status.Initialization.Provisioned != nil && *sm.Status.Initialization.Provisioned
}

// joinedMessage is sm's NodeJoined message ("" without the condition).
func joinedMessage(sm *infrav1.SSHMachine) string {
	if c := meta.FindStatusCondition(sm.Status.Conditions, infrav1.SSHMachineNodeJoinedCondition); c != nil {
		return c.Message
	}
	return ""
}

func describe(sm *infrav1.SSHMachine) string {
	var conds []string
	for _, c := range sm.Status.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s/%s %q", c.Type, c.Status, c.Reason, c.Message))
	}
	return fmt.Sprintf("%s providerID=%q provisioned=%v deleting=%v %v", sm.Name, sm.Spec.ProviderID,
		sm.Status.Initialization.Provisioned, !sm.DeletionTimestamp.IsZero(), conds)
}

func describeHost(h *infrav1.SSHHost) string {
	var conds []string
	for _, c := range h.Status.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
	}
	return fmt.Sprintf("host %s phase=%q claim=%+v %v", h.Name, h.Status.Phase, h.Spec.ClaimRef, conds)
}

// TestProvisionedOnceNodeApplied: an SSHMachine with its providerID is
// not provisioned while there is no EggoCluster, nor while status.nodes
// does not list its node or lists it Pending; it is (NodeJoined, Ready)
// once its node is Applied, and it stays so when a later run shows the
// node Pending again.
func TestProvisionedOnceNodeApplied(t *testing.T) {
	n := startNodeEnv(t, "node-join", 2)
	n.machine("m1")
	n.machine("m2")
	notProvisioned := func(what string, names ...string) {
		testenv.Consistently(t, 2*time.Second, what, func() (bool, string) {
			for _, name := range names {
				if sm := n.get(name); isProvisioned(sm) || meta.IsStatusConditionTrue(sm.Status.Conditions, infrav1.ReadyCondition) {
					return false, describe(sm)
				}
			}
			return true, ""
		})
	}
	notProvisioned("no EggoCluster: not provisioned", "m1", "m2")

	n.eggoCluster()
	n.nodes("m1", "Pending (3 of 5 resources pending)")
	testenv.Eventually(t, 30*time.Second, "m1 sees its node Pending", func() (bool, string) {
		sm := n.get("m1")
		return strings.Contains(joinedMessage(sm), "Pending (3 of 5"), describe(sm)
	})
	notProvisioned("m1 Pending, m2 not listed: not provisioned", "m1", "m2")

	n.nodes("m1", "Applied (5 resources)", "m2", "Pending (1 of 4 resources pending)")
	testenv.Eventually(t, 30*time.Second, "m1 provisioned", func() (bool, string) {
		sm := n.get("m1")
		ready := meta.FindStatusCondition(sm.Status.Conditions, infrav1.ReadyCondition)
		return isProvisioned(sm) && ready != nil && ready.Status == metav1.ConditionTrue && ready.Reason == infrastructure.NodeJoinedReason &&
			meta.IsStatusConditionTrue(sm.Status.Conditions, infrav1.SSHMachineNodeJoinedCondition), describe(sm)
	})
	notProvisioned("m2 Pending: not provisioned", "m2")

	// A later run leaves m1 Pending (and m2 Applied): m1 stays provisioned.
	n.nodes("m1", "Pending (2 of 5 resources pending)", "m2", "Applied (4 resources)")
	testenv.Eventually(t, 30*time.Second, "m2 provisioned", func() (bool, string) {
		sm := n.get("m2")
		return isProvisioned(sm), describe(sm)
	})
	testenv.Consistently(t, 2*time.Second, "m1 stays provisioned", func() (bool, string) {
		sm := n.get("m1")
		return isProvisioned(sm) && meta.IsStatusConditionTrue(sm.Status.Conditions, infrav1.ReadyCondition), describe(sm)
	})
}
