package jobrun

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
	"github.com/eggo-project/eggo/internal/harness/apitest"
)

// TestOwnership: what makes an object eggo's for an EggoCluster, and the
// refusal's words for what is not.
func TestOwnership(t *testing.T) {
	mine := metav1.OwnerReference{APIVersion: "eggo.io/v1alpha1", Kind: "EggoCluster", Name: "demo", UID: "uid-1"}
	label := map[string]string{v1alpha1.LabelCluster: "demo"}
	withUID := Options{Cluster: "demo", ClusterUID: "uid-1"}
	inTeam := Options{Namespace: "team", StateNamespace: "team-state", Cluster: "demo", ClusterUID: "uid-1"}
	stateLabels := func(ns string) map[string]string {
		return map[string]string{v1alpha1.LabelCluster: "demo", v1alpha1.LabelClusterNamespace: ns}
	}
	for _, c := range []struct {
		name string
		o    Options
		meta metav1.ObjectMeta
		want string
	}{
		{"eggo's", withUID, metav1.ObjectMeta{Labels: label, OwnerReferences: []metav1.OwnerReference{mine}}, ""},
		{"no UID given: the label", Options{Cluster: "demo"}, metav1.ObjectMeta{Labels: label}, ""},
		{"no label", withUID, metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{mine}}, "no label eggo.io/cluster=demo"},
		{"another cluster's", withUID, metav1.ObjectMeta{Labels: map[string]string{v1alpha1.LabelCluster: "prod"}},
			"label eggo.io/cluster=prod, not demo"},
		{"no owner", withUID, metav1.ObjectMeta{Labels: label}, "no ownerReference to EggoCluster demo uid uid-1"},
		{"another EggoCluster", withUID, metav1.ObjectMeta{Labels: label, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "eggo.io/v1alpha1", Kind: "EggoCluster", Name: "demo", UID: "uid-0"}}}, "no ownerReference to EggoCluster demo uid uid-1"},
		{"another kind of the UID", withUID, metav1.ObjectMeta{Labels: label, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "v1", Kind: "ConfigMap", Name: "demo", UID: "uid-1"}}}, "no ownerReference to EggoCluster demo uid uid-1"},
		// In the state namespace no ownerReference reaches the
		// EggoCluster: the object names its namespace and UID.
		{"eggo's in the state namespace", inTeam, metav1.ObjectMeta{Namespace: "team-state", Labels: stateLabels("team"),
			Annotations: map[string]string{v1alpha1.AnnotationClusterUID: "uid-1"}}, ""},
		{"an ownerReference does not do there", inTeam, metav1.ObjectMeta{Namespace: "team-state", Labels: label,
			OwnerReferences: []metav1.OwnerReference{mine}}, `label eggo.io/cluster-namespace="", not team`},
		{"another namespace's cluster of the name", inTeam, metav1.ObjectMeta{Namespace: "team-state", Labels: stateLabels("other"),
			Annotations: map[string]string{v1alpha1.AnnotationClusterUID: "uid-1"}}, `label eggo.io/cluster-namespace="other", not team`},
		{"another UID", inTeam, metav1.ObjectMeta{Namespace: "team-state", Labels: stateLabels("team"),
			Annotations: map[string]string{v1alpha1.AnnotationClusterUID: "uid-0"}}, `annotation eggo.io/cluster-uid="uid-0", not uid-1`},
	} {
		if got := missing(c.o, &c.meta); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	meta := metav1.ObjectMeta{Namespace: "clusters", Name: "demo-nodes"}
	err := checkOwned(Options{Cluster: "demo"}, "ConfigMap", &meta, "overwritten")
	want := "ConfigMap clusters/demo-nodes exists and is not eggo's for EggoCluster demo (no label eggo.io/cluster=demo): not overwritten"
	if err == nil || err.Error() != want {
		t.Errorf("refusal: %v\nwant: %s", err, want)
	}
}

// TestIsSealedPlan: only a sealed plan file is put where eggo saves.
func TestIsSealedPlan(t *testing.T) {
	for data, want := range map[string]bool{
		`{"format_version": 1, "eggo_version": "x", "sealed_to": ["age1x"], "sealed_plan": "YWdl"}`: true,
		`{"format_version": 1, "eggo_version": "x", "plan": {}}`:                                    false,
		`{"sealed_plan": "YWdl"}`: false,
		`not json`:                false,
	} {
		if got := isSealedPlan([]byte(data)); got != want {
			t.Errorf("isSealedPlan(%s) = %v", data, got)
		}
	}
}

// TestDeleteIsConditional: an object changed since it was read is not
// deleted (the delete's preconditions), nor is one swapped in under the
// same name.
func TestDeleteIsConditional(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kube-apiserver")
	}
	api := apitest.Start(t)
	ns := api.Namespace(t, "jobs")
	ctx := context.Background()
	o := Options{Namespace: ns, Cluster: "demo", Job: "j"}
	cms := api.Client.CoreV1().ConfigMaps(ns)
	s := configMaps(api.Client, ns)
	create := func() *corev1.ConfigMap {
		cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: objectMeta(o, ns, "demo-plan-aaaaaaaaaaaa", contentPlan),
			Data: map[string]string{"hash": "a"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return cm
	}
	read := create()
	changed := read.DeepCopy()
	changed.Data["hash"] = "b"
	if _, err := cms.Update(ctx, changed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.deleteOwned(ctx, o, read); !apierrors.IsConflict(err) {
		t.Errorf("delete of an object changed since it was read: %v, want a conflict", err)
	}
	if err := cms.Delete(ctx, read.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	create() // the same name, another object
	if err := s.deleteOwned(ctx, o, read); !apierrors.IsConflict(err) {
		t.Errorf("delete of an object swapped in: %v, want a conflict", err)
	}
	if _, err := cms.Get(ctx, read.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("the object swapped in is gone: %v", err)
	}
}
