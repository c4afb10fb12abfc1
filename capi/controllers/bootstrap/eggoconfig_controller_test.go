package bootstrap_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	bootstrapv1 "github.com/eggo-project/eggo/capi/api/bootstrap/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/controllers/bootstrap"
	"github.com/eggo-project/eggo/capi/internal/testenv"
)

const version = "v1.36.5"

// TestEggoConfig runs the bootstrap provider's reconciler in the test
// process as a user bound to its generated ClusterRole
// (config/rbac/bootstrap/role.yaml) against a real kube-apiserver with
// Cluster API's CRDs; the test plays core's Machine controller (it makes
// the Machines, Clusters and the ownerReferences).
func TestEggoConfig(t *testing.T) {
	e := testenv.Start(t)
	cfg := e.RoleConfig(t, "bootstrap", "eggo-capi-bootstrap")
	e.StartManager(t, "bootstrap", cfg, func(mgr manager.Manager) error {
		return (&bootstrap.EggoConfigReconciler{}).SetupWithManager(mgr, testenv.ControllerOptions())
	})
	t.Run("WritesTheDataSecret", func(t *testing.T) { testWritesTheDataSecret(t, e) })
	t.Run("Paused", func(t *testing.T) { testPaused(t, e) })
}

// fixture makes a Cluster, and a Machine (a control-plane one if cp)
// owning an EggoConfig with spec.
type fixture struct {
	e       *testenv.Env
	ns      string
	cluster *clusterv1.Cluster
}

func newFixture(t *testing.T, e *testenv.Env, ns string, paused bool) *fixture {
	t.Helper()
	f := &fixture{e: e, ns: e.API.Namespace(t, ns)}
	f.cluster = &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "c1"},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "SSHCluster", Name: "c1"}}}
	if paused {
		f.cluster.Spec.Paused = ptr.To(true)
	}
	if err := e.Client.Create(testenv.Ctx(t, 30*time.Second), f.cluster); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) machine(t *testing.T, name string, cp bool, spec bootstrapv1.EggoConfigSpec, annotations map[string]string) *bootstrapv1.EggoConfig {
	t.Helper()
	ctx := testenv.Ctx(t, 30*time.Second)
	labels := map[string]string{clusterv1.ClusterNameLabel: f.cluster.Name}
	if cp {
		labels[clusterv1.MachineControlPlaneLabel] = ""
	}
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name, Labels: labels},
		Spec: clusterv1.MachineSpec{ClusterName: f.cluster.Name, Version: version,
			Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: bootstrapv1.GroupVersion.Group, Kind: "EggoConfig", Name: name}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: infrav1.GroupVersion.Group, Kind: "SSHMachine", Name: name}}}
	if err := f.e.Client.Create(ctx, m); err != nil {
		t.Fatal(err)
	}
	c := &bootstrapv1.EggoConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name,
		Labels: map[string]string{clusterv1.ClusterNameLabel: f.cluster.Name}, Annotations: annotations,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine",
			Name: m.Name, UID: m.UID}}}, Spec: spec}
	if err := f.e.Client.Create(ctx, c); err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fixture) get(t *testing.T, c *bootstrapv1.EggoConfig) *bootstrapv1.EggoConfig {
	t.Helper()
	got := &bootstrapv1.EggoConfig{}
	if err := f.e.Client.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKeyFromObject(c), got); err != nil {
		t.Fatal(err)
	}
	return got
}

// ready waits for the EggoConfig's Ready=True and returns it.
func (f *fixture) ready(t *testing.T, c *bootstrapv1.EggoConfig) *bootstrapv1.EggoConfig {
	t.Helper()
	var got *bootstrapv1.EggoConfig
	testenv.Eventually(t, 30*time.Second, "EggoConfig "+c.Name+" Ready", func() (bool, string) {
		got = f.get(t, c)
		return meta.IsStatusConditionTrue(got.Status.Conditions, bootstrapv1.ReadyCondition), fmt.Sprintf("%+v", got.Status)
	})
	return got
}

func testWritesTheDataSecret(t *testing.T, e *testenv.Env) {
	f := newFixture(t, e, "eggoconfig-secret", false)
	worker := f.machine(t, "w1", false, bootstrapv1.EggoConfigSpec{
		NodeLabels: map[string]string{"zone": "a", "eggo.io/pool": "p1"},
		Taints: []corev1.Taint{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule},
			{Key: "gpu", Effect: corev1.TaintEffectNoExecute}},
		UninitializedTaint: true,
	}, nil)
	master := f.machine(t, "m1", true, bootstrapv1.EggoConfigSpec{}, nil)

	for _, tc := range []struct {
		cfg  *bootstrapv1.EggoConfig
		want map[string]any
	}{
		{worker, map[string]any{"kind": "EggoNode", "apiVersion": "bootstrap.eggo.io/v1alpha1", "name": "w1",
			"roles": []any{"worker"}, "kubernetesVersion": version,
			"labels": map[string]any{"zone": "a", "eggo.io/pool": "p1"},
			"taints": []any{"dedicated=db:NoSchedule", "gpu:NoExecute", "node.cluster.x-k8s.io/uninitialized:NoSchedule"}}},
		{master, map[string]any{"kind": "EggoNode", "apiVersion": "bootstrap.eggo.io/v1alpha1", "name": "m1",
			"roles": []any{"master", "etcd"}, "kubernetesVersion": version,
			"labels": map[string]any{}, "taints": []any{}}},
	} {
		got := f.ready(t, tc.cfg)
		name := tc.cfg.Name
		if ptr.Deref(got.Status.DataSecretName, "") != name || !ptr.Deref(got.Status.Initialization.DataSecretCreated, false) {
			t.Errorf("%s: dataSecretName %v dataSecretCreated %v, want %q true", name,
				ptr.Deref(got.Status.DataSecretName, "<nil>"), got.Status.Initialization.DataSecretCreated, name)
		}
		ready := meta.FindStatusCondition(got.Status.Conditions, bootstrapv1.ReadyCondition)
		if ready.ObservedGeneration != got.Generation || ready.Reason == "" {
			t.Errorf("%s: Ready %+v, want observedGeneration %d and a reason", name, ready, got.Generation)
		}
		if p := meta.FindStatusCondition(got.Status.Conditions, clusterv1.PausedCondition); p == nil || p.Status != metav1.ConditionFalse {
			t.Errorf("%s: Paused %+v, want False", name, p)
		}

		s := &corev1.Secret{}
		if err := e.Client.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKey{Namespace: f.ns, Name: name}, s); err != nil {
			t.Fatalf("%s: the data Secret: %v", name, err)
		}
		if s.Type != clusterv1.ClusterSecretType {
			t.Errorf("%s: Secret type %q, want %q", name, s.Type, clusterv1.ClusterSecretType)
		}
		if s.Labels[clusterv1.ClusterNameLabel] != f.cluster.Name {
			t.Errorf("%s: Secret labels %v, want %s=%s", name, s.Labels, clusterv1.ClusterNameLabel, f.cluster.Name)
		}
		want := metav1.OwnerReference{APIVersion: bootstrapv1.GroupVersion.String(), Kind: "EggoConfig", Name: name,
			UID: got.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
		if len(s.OwnerReferences) != 1 || !reflect.DeepEqual(s.OwnerReferences[0], want) {
			t.Errorf("%s: Secret owners %+v, want only %+v", name, s.OwnerReferences, want)
		}
		if len(s.Data) != 1 || s.Data["value"] == nil {
			t.Errorf("%s: Secret keys %v, want exactly \"value\"", name, keys(s.Data))
		}
		var data map[string]any
		if err := json.Unmarshal(s.Data["value"], &data); err != nil {
			t.Fatalf("%s: value is not JSON: %v\n%s", name, err, s.Data["value"])
		}
		if !reflect.DeepEqual(data, tc.want) {
			t.Errorf("%s: bootstrap data\n got  %s\n want %v", name, s.Data["value"], tc.want)
		}
	}

	// Written once: a changed spec does not rewrite the Secret.
	before := &corev1.Secret{}
	if err := e.Client.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKey{Namespace: f.ns, Name: "m1"}, before); err != nil {
		t.Fatal(err)
	}
	cur := f.get(t, master)
	cur.Spec.NodeLabels = map[string]string{"late": "x"}
	if err := e.Client.Update(testenv.Ctx(t, 10*time.Second), cur); err != nil {
		t.Fatal(err)
	}
	testenv.Consistently(t, 2*time.Second, "the data Secret stays as written", func() (bool, string) {
		s := &corev1.Secret{}
		if err := e.Client.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKey{Namespace: f.ns, Name: "m1"}, s); err != nil {
			return false, err.Error()
		}
		return s.ResourceVersion == before.ResourceVersion, "rewritten: " + string(s.Data["value"])
	})
}

// A paused Cluster, or the paused annotation, leaves the EggoConfig with
// Paused=True and nothing written; unpaused, the Secret comes.
func testPaused(t *testing.T, e *testenv.Env) {
	f := newFixture(t, e, "eggoconfig-paused", true)
	byCluster := f.machine(t, "by-cluster", false, bootstrapv1.EggoConfigSpec{}, nil)
	g := newFixture(t, e, "eggoconfig-paused-annotation", false)
	byAnnotation := g.machine(t, "by-annotation", false, bootstrapv1.EggoConfigSpec{},
		map[string]string{clusterv1.PausedAnnotation: ""})

	for _, c := range []struct {
		f   *fixture
		cfg *bootstrapv1.EggoConfig
	}{{f, byCluster}, {g, byAnnotation}} {
		testenv.Eventually(t, 30*time.Second, c.cfg.Name+" Paused", func() (bool, string) {
			got := c.f.get(t, c.cfg)
			p := meta.FindStatusCondition(got.Status.Conditions, clusterv1.PausedCondition)
			return p != nil && p.Status == metav1.ConditionTrue && p.ObservedGeneration == got.Generation, fmt.Sprintf("%+v", got.Status)
		})
	}
	nothingWritten := func(c *fixture, cfg *bootstrapv1.EggoConfig) func() (bool, string) {
		return func() (bool, string) {
			got := c.get(t, cfg)
			err := e.Client.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKey{Namespace: c.ns, Name: cfg.Name}, &corev1.Secret{})
			if !apierrors.IsNotFound(err) {
				return false, fmt.Sprintf("Secret: %v", err)
			}
			if got.Status.DataSecretName != nil || got.Status.Initialization.DataSecretCreated != nil ||
				meta.FindStatusCondition(got.Status.Conditions, bootstrapv1.ReadyCondition) != nil {
				return false, fmt.Sprintf("status written: %+v", got.Status)
			}
			return true, ""
		}
	}
	testenv.Consistently(t, 2*time.Second, "paused by the Cluster", nothingWritten(f, byCluster))
	testenv.Consistently(t, time.Second, "paused by the annotation", nothingWritten(g, byAnnotation))

	// Unpause the Cluster: the Cluster's event wakes its EggoConfigs.
	cl := &clusterv1.Cluster{}
	if err := e.Client.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKeyFromObject(f.cluster), cl); err != nil {
		t.Fatal(err)
	}
	cl.Spec.Paused = ptr.To(false)
	if err := e.Client.Update(testenv.Ctx(t, 10*time.Second), cl); err != nil {
		t.Fatal(err)
	}
	got := f.ready(t, byCluster)
	if p := meta.FindStatusCondition(got.Status.Conditions, clusterv1.PausedCondition); p == nil || p.Status != metav1.ConditionFalse {
		t.Errorf("unpaused: Paused %+v, want False", p)
	}
}

func keys(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
