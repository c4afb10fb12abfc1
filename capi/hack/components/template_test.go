package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/drone/envsubst/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/eggo-project/eggo/capi/internal/testenv"
)

// TestClusterTemplateIsAccepted: the cluster template, its variables
// substituted as `clusterctl generate cluster` substitutes them (drone's
// envsubst, clusterctl's own), is accepted by a real API server with
// Cluster API's and eggo's CRDs: every field the CRDs' schemas and rules
// know, of the right types. And a variable the user leaves unset takes
// its default.
func TestClusterTemplateIsAccepted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kube-apiserver")
	}
	vars := map[string]string{"CLUSTER_NAME": "demo", "NAMESPACE": "clusters", "KUBERNETES_VERSION": "v1.36.5",
		"CONTROL_PLANE_MACHINE_COUNT": "3", "WORKER_MACHINE_COUNT": "2"}
	text, err := envsubst.Eval(clusterTemplate, func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"path: v1.36.5", "claimName: eggo-bundle", "pool: load-balancers", "replicas: 3", "replicas: 2"} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendered template lacks %q", want)
		}
	}
	e := testenv.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "clusters"}}); err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(text, "\n---\n") {
		var o map[string]any
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: o}
		// Strict: a field no schema knows is refused, not pruned.
		if err := e.Client.Create(ctx, u, &client.CreateOptions{Raw: &metav1.CreateOptions{FieldValidation: "Strict"}}); err != nil {
			t.Errorf("%s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}
