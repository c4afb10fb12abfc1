package api_test

import (
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	controlplanev1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
)

// spec.version is required and "v"-prefixed semver, as the contract
// says: the server refuses an EggoControlPlane without it or with "1.36.5".
func (e *env) testControlPlaneVersionIsRequired(t *testing.T) {
	ctx := ctxFor(t)
	ns := e.api.Namespace(t, "cp-version")
	// Without: sent as unstructured, so the field is absent rather than "".
	u := &unstructured.Unstructured{}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(controlPlane(ns, "none", 1))
	if err != nil {
		t.Fatal(err)
	}
	u.Object = obj
	u.SetGroupVersionKind(controlplanev1.GroupVersion.WithKind("EggoControlPlane"))
	unstructured.RemoveNestedField(u.Object, "spec", "version")
	unstructured.RemoveNestedField(u.Object, "status")
	if err := e.c.Create(ctx, u); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `spec.version: Required value`) {
		t.Errorf("no version: %v, want spec.version: Required value", err)
	}
	for _, v := range []string{"", "1.36.5", "v1.36", "v1.36.5 ", "V1.36.5", "latest", "v01.36.5"} {
		cp := controlPlane(ns, "bad", 1)
		cp.Spec.Version = v
		if err := e.c.Create(ctx, cp); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.version") {
			t.Errorf("version %q: %v, want invalid spec.version", v, err)
		}
	}
	for i, v := range []string{"v1.36.5", "v1.37.0-rc.1", "v1.36.5+eggo.1"} {
		cp := controlPlane(ns, "good-"+string(rune('a'+i)), 1)
		cp.Spec.Version = v
		if err := e.c.Create(ctx, cp); err != nil {
			t.Errorf("version %q refused: %v", v, err)
		}
	}
}

// kubeconfig defaults to 720h validity renewed 240h before its end, and
// renewBefore must be shorter than validity.
func (e *env) testControlPlaneKubeconfigDefaults(t *testing.T) {
	ctx := ctxFor(t)
	ns := e.api.Namespace(t, "cp-kubeconfig")
	cp := controlPlane(ns, "c1", 1)
	if err := e.c.Create(ctx, cp); err != nil {
		t.Fatal(err)
	}
	if k := cp.Spec.Kubeconfig; k.Validity == nil || k.RenewBefore == nil || k.Validity.Duration != 720*time.Hour || k.RenewBefore.Duration != 240*time.Hour {
		t.Errorf("kubeconfig defaults %v/%v, want 720h/240h", k.Validity, k.RenewBefore)
	}
	d := func(x time.Duration) *metav1.Duration { return &metav1.Duration{Duration: x} }
	for _, c := range []struct {
		k    controlplanev1.KubeconfigSpec
		want string
	}{
		{controlplanev1.KubeconfigSpec{Validity: d(24 * time.Hour)}, "renewBefore must be shorter"}, // the default 240h
		{controlplanev1.KubeconfigSpec{Validity: d(48 * time.Hour), RenewBefore: d(48 * time.Hour)}, "renewBefore must be shorter"},
		{controlplanev1.KubeconfigSpec{RenewBefore: d(0)}, "renewBefore must be at least 1m"},
		{controlplanev1.KubeconfigSpec{Validity: d(time.Hour), RenewBefore: d(30 * time.Second)}, "renewBefore must be at least 1m"},
		{controlplanev1.KubeconfigSpec{Validity: d(87601 * time.Hour)}, "validity must not outlive the cluster CA"},
		{controlplanev1.KubeconfigSpec{Validity: d(time.Minute), RenewBefore: d(time.Second)}, "validity must be at least 1h"},
	} {
		bad := controlPlane(ns, "bad", 1)
		bad.Spec.Kubeconfig = c.k
		if err := e.c.Create(ctx, bad); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("kubeconfig %v/%v: %v, want refused: %s", c.k.Validity, c.k.RenewBefore, err, c.want)
		}
	}
	ok := controlPlane(ns, "short", 1)
	ok.Spec.Kubeconfig = controlplanev1.KubeconfigSpec{Validity: d(24 * time.Hour), RenewBefore: d(8 * time.Hour)}
	if err := e.c.Create(ctx, ok); err != nil {
		t.Errorf("kubeconfig 24h/8h refused: %v", err)
	}
}

// The /scale subresource is what `kubectl scale` and autoscalers use:
// it reads spec.replicas, status.replicas and status.selector, and
// writes spec.replicas (validated as the object is).
func (e *env) testControlPlaneScaleSubresource(t *testing.T) {
	ctx := ctxFor(t)
	ns := e.api.Namespace(t, "cp-scale")
	cp := controlPlane(ns, "c1", 1)
	if err := e.c.Create(ctx, cp); err != nil {
		t.Fatal(err)
	}
	selector := clusterv1.ClusterNameLabel + "=c1," + clusterv1.MachineControlPlaneLabel
	one := int32(1)
	cp.Status.Selector, cp.Status.Replicas = selector, &one
	if err := e.c.Status().Update(ctx, cp); err != nil {
		t.Fatalf("writing status: %v", err)
	}

	scale := &autoscalingv1.Scale{}
	if err := e.c.SubResource("scale").Get(ctx, cp, scale); err != nil {
		t.Fatalf("GET /scale: %v", err)
	}
	if scale.Spec.Replicas != 1 || scale.Status.Replicas != 1 || scale.Status.Selector != selector {
		t.Errorf("scale %+v, want spec 1, status 1, selector %q", scale, selector)
	}

	scale.Spec.Replicas = 3
	if err := e.c.SubResource("scale").Update(ctx, cp, client.WithSubResourceBody(scale)); err != nil {
		t.Fatalf("PUT /scale replicas=3: %v", err)
	}
	got := &controlplanev1.EggoControlPlane{}
	if err := e.c.Get(ctx, client.ObjectKeyFromObject(cp), got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Replicas == nil || *got.Spec.Replicas != 3 {
		t.Errorf("spec.replicas after scaling to 3: %v", got.Spec.Replicas)
	}
	if got.Status.Selector != selector || got.Generation != cp.Generation+1 {
		t.Errorf("after scaling: selector %q generation %d (was %d)", got.Status.Selector, got.Generation, cp.Generation)
	}

	// Through /scale the schema still holds: at least one master.
	zero := &autoscalingv1.Scale{}
	if err := e.c.SubResource("scale").Get(ctx, cp, zero); err != nil {
		t.Fatal(err)
	}
	zero.Spec.Replicas = 0
	if err := e.c.SubResource("scale").Update(ctx, cp, client.WithSubResourceBody(zero)); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.replicas") {
		t.Errorf("scaling to 0: %v, want invalid spec.replicas", err)
	}
}
