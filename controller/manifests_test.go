package controller_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	authv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
	"github.com/eggo-project/eggo/internal/harness/apitest"
)

// TestDeploymentManifests builds controller/config with kustomize (the
// bundle's kubectl), applies every object server-side to a real
// kube-apiserver, then the Jobs' sample RBAC in a namespace of
// EggoClusters, and checks what the API server made of them: the
// Deployment's image, pull policy, security and probes; its pod admitted
// under the namespace's restricted Pod Security level (a dry run); the
// controller's ServiceAccount granted the generated role, the Jobs' only
// their namespace.
func TestDeploymentManifests(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kube-apiserver")
	}
	api := apitest.Start(t)
	c, err := client.New(api.Config, client.Options{})
	must(t, err)
	ctx := context.Background()
	kubectl := filepath.Join(filepath.Dir(apitest.Binary), "kubectl")
	built, err := exec.Command(kubectl, "kustomize", "config").Output()
	if err != nil {
		t.Fatalf("kubectl kustomize config: %v", err)
	}
	objs := decodeAll(t, built)
	kinds := map[string]bool{}
	for _, o := range objs {
		kinds[o.GetKind()] = true
	}
	for _, k := range []string{"Namespace", "CustomResourceDefinition", "ClusterRole", "ServiceAccount", "ClusterRoleBinding", "Deployment"} {
		if !kinds[k] {
			t.Fatalf("the kustomization makes no %s", k)
		}
	}
	ns := api.Namespace(t, "clusters")
	sample, err := os.ReadFile("config/samples/job_rbac.yaml")
	must(t, err)
	for _, o := range append(objs, decodeAll(t, sample)...) {
		if err := c.Patch(ctx, o, client.Apply, client.FieldOwner("eggo-test"), client.ForceOwnership); err != nil {
			t.Fatalf("server-side apply of %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}

	var d appsv1.Deployment
	must(t, c.Get(ctx, client.ObjectKey{Namespace: "eggo-system", Name: "eggo-controller"}, &d))
	pod := d.Spec.Template.Spec
	m := pod.Containers[0]
	if m.Image != "eggo.io/eggo:dev" || m.ImagePullPolicy != corev1.PullNever {
		t.Errorf("image %s, pull policy %s: want eggo.io/eggo:dev (kustomize's images), never pulled", m.Image, m.ImagePullPolicy)
	}
	if pod.ServiceAccountName != "eggo-controller" || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot ||
		*pod.SecurityContext.RunAsUser != 65532 {
		t.Errorf("pod runs as %s, %+v: want eggo-controller's account, non-root 65532", pod.ServiceAccountName, pod.SecurityContext)
	}
	if sc := m.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("the manager's root filesystem is writable")
	}
	if m.LivenessProbe == nil || m.LivenessProbe.HTTPGet.Path != "/healthz" || m.ReadinessProbe == nil || m.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("probes: liveness %+v, readiness %+v", m.LivenessProbe, m.ReadinessProbe)
	}
	// One tag names both images: the policy's jobImage is the
	// controller's (the kustomization's replacement), and the admission
	// policy holds EggoClusters to it.
	var policy corev1.ConfigMap
	must(t, c.Get(ctx, client.ObjectKey{Namespace: "eggo-system", Name: "eggo-policy"}, &policy))
	if policy.Data["jobImage"] != m.Image || policy.Data["allowHostPathBundle"] != "false" ||
		policy.Data["stateNamespace.clusters"] != "clusters-state" {
		t.Errorf("the policy %v: want jobImage %s (the controller's), hostPath bundles off, and the samples' state namespace", policy.Data, m.Image)
	}
	if !slices.Contains(m.Args, "--policy=eggo-system/eggo-policy") {
		t.Errorf("the controller's args %q do not name its policy", m.Args)
	}
	if !kinds["ValidatingAdmissionPolicy"] || !kinds["ValidatingAdmissionPolicyBinding"] {
		t.Errorf("the kustomization makes no admission policy or no binding")
	}
	// The pod the Deployment would make is admitted in eggo-system (Pod
	// Security "restricted", the ServiceAccount there).
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "eggo-controller-dry-run", Namespace: "eggo-system"}, Spec: pod}
	if err := c.Create(ctx, p, client.DryRunAll); err != nil {
		t.Errorf("the Deployment's pod is refused: %v", err)
	}

	can := func(sa, ns, verb, group, resource, where string) bool {
		r := &authv1.SubjectAccessReview{Spec: authv1.SubjectAccessReviewSpec{
			User:               "system:serviceaccount:" + ns + ":" + sa,
			Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + ns},
			ResourceAttributes: &authv1.ResourceAttributes{Namespace: where, Verb: verb, Group: group, Resource: resource},
		}}
		must(t, c.Create(ctx, r))
		return r.Status.Allowed
	}
	for _, w := range []struct {
		sa, ns, verb, group, resource, where string
		want                                 bool
	}{
		{"eggo-controller", "eggo-system", "watch", v1alpha1.GroupVersion.Group, "eggoclusters", "", true},
		{"eggo-controller", "eggo-system", "create", "batch", "jobs", ns, true},
		{"eggo-controller", "eggo-system", "update", "coordination.k8s.io", "leases", "eggo-system", true}, // leader election
		{"eggo-controller", "eggo-system", "list", "", "secrets", ns, false},
		// The Jobs: ConfigMaps in their namespace, and no Secret or
		// Lease there; Secrets and Leases in its state namespace only.
		{"eggo-job", ns, "create", "", "configmaps", ns, true},
		{"eggo-job", ns, "get", "", "secrets", ns, false},
		{"eggo-job", ns, "create", "", "secrets", ns, false},
		{"eggo-job", ns, "update", "coordination.k8s.io", "leases", ns, false},
		{"eggo-job", ns, "create", "", "secrets", "clusters-state", true},
		{"eggo-job", ns, "get", "", "secrets", "clusters-state", true},
		{"eggo-job", ns, "update", "coordination.k8s.io", "leases", "clusters-state", true},
		{"eggo-job", ns, "get", "", "secrets", "eggo-system", false},
	} {
		if got := can(w.sa, w.ns, w.verb, w.group, w.resource, w.where); got != w.want {
			t.Errorf("%s/%s may %s %s.%s in %q: %v, want %v", w.ns, w.sa, w.verb, w.resource, w.group, w.where, got, w.want)
		}
	}
}

// decodeAll reads every object of a multi-document YAML stream.
func decodeAll(t *testing.T, data []byte) []*unstructured.Unstructured {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		var u unstructured.Unstructured
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return objs
		}
		must(t, err)
		if len(u.Object) > 0 {
			objs = append(objs, &u)
		}
	}
}
