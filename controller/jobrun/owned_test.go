package jobrun_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
	"github.com/eggo-project/eggo/controller/jobrun"
)

const demoUID = "0b6c1d3e-uid-demo"

func demoOptions(ns, kubeconfig, job string) jobrun.Options {
	return jobrun.Options{Namespace: ns, StateNamespace: stateNS, Cluster: "demo", ClusterUID: demoUID, Job: job, Kubeconfig: kubeconfig}
}

func planOf(tag string) jobrun.Plan {
	saved := []byte("saved plan " + tag)
	sum := sha256.Sum256(saved)
	return jobrun.Plan{Hash: hex.EncodeToString(sum[:]), Saved: saved, Config: []byte("configuration " + tag), Text: "Plan: " + tag}
}

// snapshot is an object as the API serves it: what must not change.
func snapshot(t *testing.T, obj any) string {
	t.Helper()
	b, err := json.Marshal(obj)
	must(t, err)
	return string(b)
}

// TestForeignObjectsAreRefused: a <cluster>-nodes ConfigMap or a plan
// Secret of the Job's name that is not eggo's for the EggoCluster (no
// cluster label; the label without the EggoCluster's ownerReference) is
// refused, named, and left exactly as it was.
func TestForeignObjectsAreRefused(t *testing.T) {
	api, ns, kubeconfig := jobsAPI(t)
	ctx := context.Background()
	o := demoOptions(ns, kubeconfig, "demo-plan-g1")
	cms, secs := api.Client.CoreV1().ConfigMaps(ns), api.Client.CoreV1().Secrets(stateNS)

	nodes, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "demo-nodes"},
		Data: map[string]string{"nodes.json": "the user's own"}}, metav1.CreateOptions{})
	must(t, err)
	err = jobrun.WriteNodes(o, []v1alpha1.NodeStatus{})
	want := "ConfigMap " + ns + "/demo-nodes exists and is not eggo's for EggoCluster demo (no label eggo.io/cluster=demo): not overwritten"
	if err == nil || err.Error() != want {
		t.Errorf("WriteNodes over a user's demo-nodes: %v\nwant: %s", err, want)
	}
	after, err := cms.Get(ctx, "demo-nodes", metav1.GetOptions{})
	must(t, err)
	if snapshot(t, after) != snapshot(t, nodes) {
		t.Errorf("the user's demo-nodes changed:\n%s\nwas\n%s", snapshot(t, after), snapshot(t, nodes))
	}

	// A plan Secret of the name in the state namespace, labelled for the
	// cluster but naming another EggoCluster (one deleted and made again,
	// say).
	p := planOf("one")
	name := v1alpha1.PlanObjectName("demo", p.Hash)
	sec, err := secs.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels:      map[string]string{v1alpha1.LabelCluster: "demo", v1alpha1.LabelClusterNamespace: ns, v1alpha1.LabelContent: "plan"},
		Annotations: map[string]string{v1alpha1.AnnotationClusterUID: "another-uid"}},
		Data: map[string][]byte{v1alpha1.PlanKeyFile: []byte("someone else's")}}, metav1.CreateOptions{})
	must(t, err)
	err = jobrun.Publish(o, p)
	want = "Secret " + stateNS + "/" + name + ` exists and is not eggo's for EggoCluster demo (annotation eggo.io/cluster-uid="another-uid", not ` + demoUID + "): not overwritten"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Publish over a foreign plan Secret: %v\nwant: %s", err, want)
	}
	afterSec, err := secs.Get(ctx, name, metav1.GetOptions{})
	must(t, err)
	if snapshot(t, afterSec) != snapshot(t, sec) {
		t.Error("the foreign plan Secret changed")
	}
	if _, err := cms.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a plan ConfigMap was published beside a refused Secret: %v", err)
	}
}

// TestSupersededPlansAreDeleted: after plan 2 is published, the
// EggoCluster's other plan objects are deleted; a foreign one carrying
// the labels is left as it was, named in a warning, and another
// EggoCluster's plans are not touched.
func TestSupersededPlansAreDeleted(t *testing.T) {
	api, ns, kubeconfig := jobsAPI(t)
	ctx := context.Background()
	cms, secs := api.Client.CoreV1().ConfigMaps(ns), api.Client.CoreV1().Secrets(stateNS)
	p1, p2 := planOf("one"), planOf("two")
	must(t, jobrun.Publish(demoOptions(ns, kubeconfig, "demo-plan-g1"), p1))
	other := jobrun.Options{Namespace: ns, StateNamespace: stateNS, Cluster: "other", ClusterUID: "uid-other", Job: "other-plan-g1", Kubeconfig: kubeconfig}
	must(t, jobrun.Publish(other, p1))
	foreign, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "demo-plan-mine",
		Labels: map[string]string{v1alpha1.LabelCluster: "demo", v1alpha1.LabelContent: "plan"}},
		Data: map[string]string{"notes": "mine"}}, metav1.CreateOptions{})
	must(t, err)

	o := demoOptions(ns, kubeconfig, "demo-plan-g2")
	must(t, jobrun.Publish(o, p2))
	var log strings.Builder
	if err := jobrun.DeleteSuperseded(o, p2.Hash, &log); err != nil {
		t.Fatalf("DeleteSuperseded: %v\n%s", err, log.String())
	}
	old := v1alpha1.PlanObjectName("demo", p1.Hash)
	if _, err := secs.Get(ctx, old, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("plan 1's Secret is still there: %v", err)
	}
	if _, err := cms.Get(ctx, old, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("plan 1's ConfigMap is still there: %v", err)
	}
	current := v1alpha1.PlanObjectName("demo", p2.Hash)
	for _, name := range []string{current, v1alpha1.PlanObjectName("other", p1.Hash)} {
		if _, err := secs.Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("Secret %s (the current plan's, or another cluster's) was deleted: %v", name, err)
		}
		if _, err := cms.Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("ConfigMap %s (the current plan's, or another cluster's) was deleted: %v", name, err)
		}
	}
	after, err := cms.Get(ctx, "demo-plan-mine", metav1.GetOptions{})
	must(t, err)
	if snapshot(t, after) != snapshot(t, foreign) {
		t.Error("the foreign plan-labelled ConfigMap changed")
	}
	want := "ConfigMap " + ns + "/demo-plan-mine exists and is not eggo's for EggoCluster demo (no ownerReference to EggoCluster demo uid " + demoUID + "): not deleted"
	if !strings.Contains(log.String(), want) {
		t.Errorf("the warnings do not name the foreign ConfigMap:\n%s\nwant: %s", log.String(), want)
	}

	// After a destroy, the cluster's saved plans and access Secrets go
	// from the state namespace; another cluster's stay.
	must(t, jobrun.PublishAccess(o, jobrun.Access{Kubeconfig: []byte("kubeconfig"), CACert: []byte(testCACert)}))
	log.Reset()
	if err := jobrun.DeleteLeftovers(o, &log); err != nil {
		t.Fatalf("DeleteLeftovers: %v\n%s", err, log.String())
	}
	for _, name := range []string{current, "demo-kubeconfig", "demo-ca"} {
		if _, err := secs.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("Secret %s is left after the destroy: %v", name, err)
		}
	}
	if _, err := secs.Get(ctx, v1alpha1.PlanObjectName("other", p1.Hash), metav1.GetOptions{}); err != nil {
		t.Errorf("another cluster's plan Secret went with demo's: %v", err)
	}
}
