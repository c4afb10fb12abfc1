package api_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	bootstrapv1 "github.com/eggo-project/eggo/capi/api/bootstrap/v1alpha1"
	controlplanev1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
)

// A controller-runtime client with the scheme creates, gets and lists an
// object of every kind of the three groups, and reads back the spec it
// wrote: the scheme registration, the JSON names and the CRDs agree.
func (e *env) testEveryKindRoundTrips(t *testing.T) {
	ctx := ctxFor(t)
	ns := e.api.Namespace(t, "kinds")
	objs := samples(ns)
	for _, gvk := range e.eggoKinds() {
		obj, ok := objs[gvk.Kind]
		if !ok {
			t.Errorf("no sample of %s", gvk)
			continue
		}
		if got, err := apiutil.GVKForObject(obj, e.scheme); err != nil || got != gvk {
			t.Errorf("%T: the scheme says %v %v, want %v", obj, got, err, gvk)
		}
		sent := obj.DeepCopyObject().(client.Object)
		if err := e.c.Create(ctx, obj); err != nil {
			t.Errorf("creating %s: %v", gvk.Kind, err)
			continue
		}
		got := obj.DeepCopyObject().(client.Object)
		if err := e.c.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
			t.Errorf("getting %s: %v", gvk.Kind, err)
			continue
		}
		if got.GetUID() == "" || got.GetUID() != obj.GetUID() {
			t.Errorf("%s: uid %q, created %q", gvk.Kind, got.GetUID(), obj.GetUID())
		}
		if !specContains(t, got, sent) {
			t.Errorf("%s: the stored spec lost what was sent:\n sent %+v\n got  %+v", gvk.Kind, specOf(t, sent), specOf(t, got))
		}
		l, err := e.scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err != nil {
			t.Errorf("%sList is not in the scheme: %v", gvk.Kind, err)
			continue
		}
		list := l.(client.ObjectList)
		if err := e.c.List(ctx, list, client.InNamespace(ns)); err != nil || meta.LenList(list) != 1 {
			t.Errorf("listing %s: %d items, %v", gvk.Kind, meta.LenList(list), err)
		}
	}
}

// specContains says whether every field of sent's spec is in got's with
// the same value (got may hold defaults besides).
func specContains(t *testing.T, got, sent client.Object) bool {
	return contains(specOf(t, got), specOf(t, sent))
}

func specOf(t *testing.T, obj client.Object) interface{} {
	t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return u["spec"]
}

func contains(got, want interface{}) bool {
	wm, ok := want.(map[string]interface{})
	if !ok {
		return equality.Semantic.DeepEqual(got, want)
	}
	gm, ok := got.(map[string]interface{})
	if !ok {
		return false
	}
	for k, v := range wm {
		if !contains(gm[k], v) {
			return false
		}
	}
	return true
}

// Cluster API's own Cluster (its CRD from the pinned module, v1beta2)
// takes eggo's control plane and infrastructure cluster as its refs, by
// apiGroup and kind as the contract's references are, and a Machine the
// SSHMachine and EggoConfig: the kinds fit core's reference schema.
func (e *env) testCoreRefersToEggoKinds(t *testing.T) {
	ctx := ctxFor(t)
	ns := e.api.Namespace(t, "core-refs")
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c1"}, Spec: clusterv1.ClusterSpec{
		ControlPlaneRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: controlplanev1.GroupVersion.Group, Kind: "EggoControlPlane", Name: "c1"},
		InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "SSHCluster", Name: "c1"},
	}}
	if err := e.c.Create(ctx, cluster); err != nil {
		t.Fatalf("a Cluster with eggo's refs: %v", err)
	}
	version := "v1.36.5"
	machine := &clusterv1.Machine{ObjectMeta: objMeta(ns, "m1"), Spec: clusterv1.MachineSpec{
		ClusterName: "c1",
		Version:     version,
		Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: bootstrapv1.GroupVersion.Group, Kind: "EggoConfig", Name: "m1"}},
		InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "SSHMachine", Name: "m1"},
	}}
	if err := e.c.Create(ctx, machine); err != nil {
		t.Fatalf("a Machine with eggo's refs: %v", err)
	}
}
