package controlplane

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cpv1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/internal/testenv"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// cpEnv is a real API server with Cluster API's CRDs, eggo's providers'
// and the GitOps mode's EggoCluster; the test plays Cluster API's core
// and the infrastructure and bootstrap providers, and calls the
// reconciler as its manager would.
type cpEnv struct {
	c  client.Client
	r  *Reconciler
	ns string
}

func startCPEnv(t *testing.T) *cpEnv {
	if testing.Short() {
		t.Skip("starts a kube-apiserver")
	}
	te := testenv.Start(t)
	if err := eggov1.AddToScheme(te.Scheme); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, crd := range testenv.ReadCRDs(t, filepath.Join(te.ModuleDir, "..", "controller", "config", "crd")) {
		if err := te.Client.Create(ctx, crd); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(te.API.Config, client.Options{Scheme: te.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return c.List(ctx, &eggov1.EggoClusterList{}) == nil })
	// The reconciler runs as a user bound to its generated role only.
	rc, err := client.New(te.RoleConfig(t, "controlplane", "eggo-capi-controlplane"), client.Options{Scheme: te.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return &cpEnv{c: c, r: &Reconciler{Client: rc, APIReader: rc, Scheme: te.Scheme}}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); !ok(); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("timed out")
		}
	}
}

func (e *cpEnv) must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// reconcile runs one pass for the control plane.
func (e *cpEnv) reconcile(t *testing.T, ns string) {
	t.Helper()
	if _, err := e.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: "work-cp"}}); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
}

// setup makes a Cluster, its SSHMachineTemplate and its EggoControlPlane
// of replicas, owned by the Cluster as Cluster API makes it.
func (e *cpEnv) setup(t *testing.T, ns string, replicas int32) *clusterv1.Cluster {
	ctx := context.Background()
	e.must(t, e.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "work", Namespace: ns}}
	cluster.Spec.ClusterNetwork.Services.CIDRBlocks = []string{"10.96.0.0/16"}
	cluster.Spec.ControlPlaneEndpoint = clusterv1.APIEndpoint{Host: "10.0.0.100", Port: 6443}
	e.must(t, e.c.Create(ctx, cluster))
	e.must(t, e.c.Create(ctx, &infrav1.SSHMachineTemplate{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: ns},
		Spec: infrav1.SSHMachineTemplateSpec{Template: infrav1.SSHMachineTemplateResource{
			Spec: infrav1.SSHMachineSpec{HostSelector: infrav1.HostSelector{Pool: "p"}}}}}))
	cp := &cpv1.EggoControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "work-cp", Namespace: ns,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: "work", UID: cluster.UID}}},
		Spec: cpv1.EggoControlPlaneSpec{Replicas: &replicas, Version: "v1.36.5",
			MachineTemplate: cpv1.EggoControlPlaneMachineTemplate{Spec: cpv1.EggoControlPlaneMachineTemplateSpec{
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "SSHMachineTemplate", Name: "cp"}}},
			Eggo: cpv1.EggoSpec{Bundle: eggov1.BundleSource{Path: "v1.36.5", Volume: eggov1.BundleVolume{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "bundle"}}}}}}
	e.must(t, e.c.Create(ctx, cp))
	return cluster
}

func (e *cpEnv) machines(t *testing.T, ns string) []clusterv1.Machine {
	var l clusterv1.MachineList
	e.must(t, e.c.List(context.Background(), &l, client.InNamespace(ns)))
	return l.Items
}

// newWorker creates a worker Machine of the Cluster "work" (as a
// MachineDeployment's) and its SSHMachine in pool "p".
func (e *cpEnv) newWorker(t *testing.T, ns, name string) *clusterv1.Machine {
	t.Helper()
	ctx := context.Background()
	worker := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{clusterv1.ClusterNameLabel: "work"}},
		Spec: clusterv1.MachineSpec{ClusterName: "work", Version: "v1.36.5",
			Bootstrap:         clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{APIGroup: "bootstrap.eggo.io", Kind: "EggoConfig", Name: name}},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: infrav1.GroupVersion.Group, Kind: "SSHMachine", Name: name}}}
	e.must(t, e.c.Create(ctx, &infrav1.SSHMachine{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: infrav1.SSHMachineSpec{HostSelector: infrav1.HostSelector{Pool: "p"}}}))
	e.must(t, e.c.Create(ctx, worker))
	return worker
}

// provision does what the infrastructure and bootstrap providers (and
// core, copying the data Secret's name) do for machine m: a host claimed
// by its SSHMachine, its providerID, its data Secret.
func (e *cpEnv) provision(t *testing.T, m *clusterv1.Machine, host, address string, roles string) {
	e.provisionWithKey(t, m, host, address, roles, "pool-key")
}

// provisionWithKey is provision on a host whose SSH key Secret is key.
func (e *cpEnv) provisionWithKey(t *testing.T, m *clusterv1.Machine, host, address, roles, key string) {
	ctx := context.Background()
	var sm infrav1.SSHMachine
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: m.Spec.InfrastructureRef.Name}, &sm))
	e.must(t, e.c.Create(ctx, &infrav1.SSHHost{ObjectMeta: metav1.ObjectMeta{Name: host, Namespace: m.Namespace},
		Spec: infrav1.SSHHostSpec{Pool: "p", Address: address, HostKey: testHostKey, SSHKeySecretRef: infrav1.SecretReference{Name: key},
			ClaimRef: &infrav1.SSHHostClaim{ClusterName: "work", ClusterUID: "u", Purpose: infrav1.ClaimMachine,
				MachineName: sm.Name, MachineUID: string(sm.UID)}}}))
	sm.Annotations = map[string]string{infrav1.HostAnnotation: host}
	sm.Spec.ProviderID = "eggo://" + m.Namespace + "/" + host + "/" + string(sm.UID)
	e.must(t, e.c.Update(ctx, &sm))
	e.must(t, e.c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace,
		Labels: map[string]string{clusterv1.ClusterNameLabel: m.Spec.ClusterName}},
		Type: clusterv1.ClusterSecretType, Data: map[string][]byte{"value": []byte(`{"kind":"EggoNode","apiVersion":"bootstrap.eggo.io/v1alpha1","name":"` +
			m.Name + `","roles":` + roles + `,"kubernetesVersion":"v1.36.5"}`)}}))
	name := m.Name
	m.Spec.Bootstrap.DataSecretName = &name
	e.must(t, e.c.Update(ctx, m))
}

func TestControlPlane(t *testing.T) {
	e := startCPEnv(t)
	ctx := context.Background()

	// The control-plane Machine: made once, with its SSHMachine (from
	// the template) and EggoConfig; no EggoCluster while it waits.
	ns := "cp-life"
	e.setup(t, ns, 1)
	e.reconcile(t, ns)
	e.reconcile(t, ns) // a second pass makes no second Machine
	ms := e.machines(t, ns)
	if len(ms) != 1 || ms[0].Labels[clusterv1.MachineControlPlaneLabel] != "" || ms[0].Spec.Version != "v1.36.5" ||
		ms[0].Spec.InfrastructureRef.Kind != "SSHMachine" || ms[0].Spec.Bootstrap.ConfigRef.Kind != "EggoConfig" {
		t.Fatalf("machines %+v", ms)
	}
	if _, ok := ms[0].Labels[clusterv1.MachineControlPlaneLabel]; !ok {
		t.Fatalf("machine %s has no control-plane label", ms[0].Name)
	}
	var sm infrav1.SSHMachine
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: ms[0].Name}, &sm))
	if sm.Spec.HostSelector.Pool != "p" {
		t.Errorf("SSHMachine spec %+v: want the template's", sm.Spec)
	}
	var cp cpv1.EggoControlPlane
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work-cp"}, &cp))
	if cp.Status.Replicas == nil || *cp.Status.Replicas != 1 || cp.Status.Selector != "cluster.x-k8s.io/cluster-name=work,cluster.x-k8s.io/control-plane" ||
		!meta.IsStatusConditionTrue(cp.Status.Conditions, cpv1.ScalingUpCondition) {
		t.Errorf("status %+v", cp.Status)
	}
	if err := e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work"}, &eggov1.EggoCluster{}); err == nil {
		t.Fatal("an EggoCluster before any machine is ready")
	}

	// Ready, with a worker of a MachineDeployment: one EggoCluster, named
	// after the Cluster, controlled by the control plane, naming both.
	e.provision(t, &ms[0], "h1", "10.0.0.11", `["master","etcd"]`)
	worker := e.newWorker(t, ns, "work-md-x1")
	e.provision(t, worker, "h2", "10.0.0.21", `["worker"]`)
	e.reconcile(t, ns)
	var ec eggov1.EggoCluster
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work"}, &ec))
	hcl := *ec.Spec.Config.Inline
	if !metav1.IsControlledBy(&ec, &cp) || ec.Spec.Approval != eggov1.ApprovalManual || ec.Spec.SSHKeySecretRef.Name != "pool-key" ||
		!strings.Contains(hcl, `node "`+ms[0].Name+`"`) || !strings.Contains(hcl, `node "work-md-x1"`) ||
		!strings.Contains(hcl, `api_endpoint       = "10.0.0.100:6443"`) || !strings.Contains(hcl, `provider_id = "eggo://`+ns+`/h2/`) {
		t.Fatalf("EggoCluster %+v\n%s", ec.Spec, hcl)
	}
	rv := ec.ResourceVersion
	e.reconcile(t, ns)
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work"}, &ec))
	if ec.ResourceVersion != rv {
		t.Error("an unchanged cluster's EggoCluster was written again")
	}

	// Paused: no Machine for more replicas.
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work-cp"}, &cp))
	three := int32(3)
	cp.Spec.Replicas = &three
	cp.Annotations = map[string]string{clusterv1.PausedAnnotation: ""}
	e.must(t, e.c.Update(ctx, &cp))
	e.reconcile(t, ns)
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work-cp"}, &cp))
	if n := len(e.machines(t, ns)); n != 2 || !meta.IsStatusConditionTrue(cp.Status.Conditions, cpv1.PausedCondition) {
		t.Errorf("paused: %d machines (want 2), conditions %+v", n, cp.Status.Conditions)
	}

	// Another's EggoCluster of the Cluster's name is left as it is.
	ns = "cp-foreign"
	e.setup(t, ns, 1)
	inline := "theirs"
	e.must(t, e.c.Create(ctx, &eggov1.EggoCluster{ObjectMeta: metav1.ObjectMeta{Name: "work", Namespace: ns},
		Spec: eggov1.EggoClusterSpec{Config: eggov1.ConfigSource{Inline: &inline}, SSHKeySecretRef: corev1.LocalObjectReference{Name: "k"},
			Bundle: eggov1.BundleSource{Volume: eggov1.BundleVolume{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "b"}}}}}))
	if _, err := e.r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: "work-cp"}}); err == nil ||
		!strings.Contains(err.Error(), "EggoCluster "+ns+"/work exists and is not this control plane's: not overwritten") {
		t.Errorf("over another's EggoCluster: %v", err)
	}
	if n := len(e.machines(t, ns)); n != 0 {
		t.Errorf("%d Machines made for a cluster whose EggoCluster is another's", n)
	}
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work"}, &ec))
	if *ec.Spec.Config.Inline != "theirs" {
		t.Error("another's EggoCluster was overwritten")
	}
}
