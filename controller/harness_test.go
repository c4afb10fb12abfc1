package controller_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	"github.com/eggo-project/eggo/controller"
	"github.com/eggo-project/eggo/controller/api/v1alpha1"
	"github.com/eggo-project/eggo/internal/harness/apitest"
)

// The credentials of the tests: none may appear in a Job, the
// EggoCluster, a ConfigMap or the controller's log.
const (
	testPrivateKey = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAtestKEYsecret0123456789\n-----END OPENSSH PRIVATE KEY-----\n"
	testIdentity   = "AGE-SECRET-KEY-1TESTIDENTITYTOKEN0123456789QWERTYUIOPASDFGHJKL"
	// The workload cluster's admin client key, in the admin kubeconfig an
	// apply Job publishes as <cluster>-kubeconfig (base64 there, as
	// client-key-data): only that Secret may hold it.
	testAdminKey = "-----BEGIN EC PRIVATE KEY-----\nADMINKEYsecret0123456789\n-----END EC PRIVATE KEY-----\n"
)

// env is one real kube-apiserver with the CRD installed and the
// controller running against it, shared by the subtests (each in its own
// namespace).
type env struct {
	api    *apitest.Server
	c      client.Client
	scheme *runtime.Scheme
	log    *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startEnv(t *testing.T) *env {
	t.Helper()
	e := &env{api: apitest.Start(t), scheme: runtime.NewScheme(), log: &syncBuffer{}}
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1alpha1.AddToScheme, apiextv1.AddToScheme} {
		if err := add(e.scheme); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if e.c, err = client.New(e.api.Config, client.Options{Scheme: e.scheme}); err != nil {
		t.Fatal(err)
	}
	e.installCRD(t)
	e.installPolicy(t)
	ctrl.SetLogger(zap.New(zap.WriteTo(e.log), zap.UseDevMode(true)))
	mgr, err := ctrl.NewManager(e.controllerConfig(t), ctrl.Options{
		Scheme: e.scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &controller.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: e.scheme,
		Recorder: mgr.GetEventRecorderFor("eggo-controller")}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	return e
}

// controllerConfig is a user bound to the generated ClusterRole and no
// more: the controller runs with exactly the permissions the role grants.
func (e *env) controllerConfig(t *testing.T) *rest.Config {
	data, err := os.ReadFile("config/rbac/role.yaml")
	must(t, err)
	var role rbacv1.ClusterRole
	must(t, yaml.Unmarshal(data, &role))
	ctx := context.Background()
	must(t, e.c.Create(ctx, &role))
	must(t, e.c.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "eggo-controller"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "eggo-controller"}},
	}))
	cfg, err := clientcmd.BuildConfigFromFlags("", e.api.UserKubeconfig(t, "eggo-controller"))
	must(t, err)
	return cfg
}

// installCRD creates the committed CRD and waits until it is served.
func (e *env) installCRD(t *testing.T) {
	data, err := os.ReadFile("config/crd/eggo.io_eggoclusters.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := e.c.Create(ctx, &crd); err != nil {
		t.Fatalf("creating the CRD: %v", err)
	}
	eventually(t, 30*time.Second, func() (bool, string) {
		var got apiextv1.CustomResourceDefinition
		if err := e.c.Get(ctx, client.ObjectKeyFromObject(&crd), &got); err != nil {
			return false, err.Error()
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextv1.Established && c.Status == apiextv1.ConditionTrue {
				return true, ""
			}
		}
		return false, "CRD not established"
	})
	eventually(t, 30*time.Second, func() (bool, string) {
		err := e.c.List(ctx, &v1alpha1.EggoClusterList{})
		return err == nil, fmt.Sprint(err)
	})
}

// stateNamespaces are the tests' namespaces whose Jobs keep their state
// in a namespace of its own (the policy's stateNamespace.<ns>); the other
// tests' namespaces keep their own.
var stateNamespaces = map[string]string{approvalNS: approvalStateNS, orphanNS: orphanStateNS}

const (
	approvalNS, approvalStateNS = "manual-approval", "manual-approval-state"
	orphanNS, orphanStateNS     = "orphan", "orphan-state"
)

// testJobImage is the policy's jobImage in the tests (the kustomization
// copies the controller's image there).
const testJobImage = "eggo:test"

// installPolicy creates the committed policy ConfigMap (its jobImage set,
// as the kustomization's replacement sets it) and the committed
// admission policy and binding, and waits until the API server enforces
// them.
func (e *env) installPolicy(t *testing.T) {
	ctx := context.Background()
	e.api.Namespace(t, controller.DefaultPolicyConfigMap.Namespace)
	for _, file := range []string{"config/policy/policy.yaml", "config/policy/admission.yaml"} {
		data, err := os.ReadFile(file)
		must(t, err)
		for _, o := range decodeAll(t, data) {
			if o.GetKind() == "ConfigMap" {
				must(t, unstructured.SetNestedField(o.Object, testJobImage, "data", controller.PolicyKeyJobImage))
				// Some namespaces of the tests keep their state in a
				// namespace of their own, as the samples' clusters does.
				for ns, state := range stateNamespaces {
					e.api.Namespace(t, state)
					must(t, unstructured.SetNestedField(o.Object, state, "data", controller.PolicyKeyStateNamespacePrefix+ns))
				}
			}
			must(t, e.c.Create(ctx, o))
		}
	}
	// The API server compiles a new policy and its binding in the
	// background: until then an EggoCluster it refuses is let in.
	e.api.Namespace(t, "policy-probe")
	eventually(t, 30*time.Second, func() (bool, string) {
		probe := probeCluster("policy-probe")
		probe.Spec.Image = "not-allowed:1"
		err := e.c.Create(ctx, probe, client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), "is not allowed"), fmt.Sprintf("a disallowed image is admitted: %v", err)
	})
}

// probeCluster is a valid EggoCluster for the admission tests.
func probeCluster(ns string) *v1alpha1.EggoCluster {
	hcl := `cluster "demo" {}`
	return &v1alpha1.EggoCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: ns},
		Spec: v1alpha1.EggoClusterSpec{
			Config:          v1alpha1.ConfigSource{Inline: &hcl},
			Bundle:          v1alpha1.BundleSource{Volume: pvcBundle()},
			SSHKeySecretRef: corev1.LocalObjectReference{Name: "ssh"},
		},
	}
}

func pvcBundle() v1alpha1.BundleVolume {
	return v1alpha1.BundleVolume{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "eggo-bundle"}}
}

// optIn is the annotation with which a Secret lets the EggoCluster demo
// mount it.
func optIn() map[string]string { return map[string]string{v1alpha1.AnnotationSecretClusters: "demo"} }

// eventually polls cond until it holds or the time is up.
func eventually(t *testing.T, limit time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", limit, why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// consistently checks cond for a while (the controller has had its
// chances to act).
func consistently(t *testing.T, d time.Duration, cond func() (bool, string)) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if ok, why := cond(); !ok {
			t.Fatal(why)
		}
	}
}

// newCluster makes a namespace with the SSH key and identity Secrets and
// an EggoCluster there.
func (e *env) newCluster(t *testing.T, ns string, edit func(*v1alpha1.EggoCluster)) *v1alpha1.EggoCluster {
	t.Helper()
	e.api.Namespace(t, ns)
	ctx := context.Background()
	must(t, e.c.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "ssh", Namespace: ns, Annotations: optIn()}, Type: corev1.SecretTypeSSHAuth,
		Data: map[string][]byte{corev1.SSHAuthPrivateKey: []byte(testPrivateKey)},
	}))
	must(t, e.c.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "identity", Namespace: ns, Annotations: optIn()},
		Data:       map[string][]byte{v1alpha1.IdentityKey: []byte(testIdentity)},
	}))
	hcl := `cluster "demo" { kubernetes_version = "1.31.4" }`
	c := &v1alpha1.EggoCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: ns},
		Spec: v1alpha1.EggoClusterSpec{
			Config:            v1alpha1.ConfigSource{Inline: &hcl},
			Variables:         map[string]string{"workers": "1"},
			Bundle:            v1alpha1.BundleSource{Path: "v1.31.4", Volume: pvcBundle()},
			SSHKeySecretRef:   corev1.LocalObjectReference{Name: "ssh"},
			IdentitySecretRef: &corev1.LocalObjectReference{Name: "identity"},
			Approval:          v1alpha1.ApprovalManual,
		},
	}
	if edit != nil {
		edit(c)
	}
	must(t, e.c.Create(ctx, c))
	return c
}

// edit changes the EggoCluster as a user would, again after a conflict:
// the controller updates the object too (its finalizer).
func (e *env) edit(t *testing.T, ns string, change func(*v1alpha1.EggoCluster)) {
	t.Helper()
	must(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		c := e.cluster(t, ns)
		change(c)
		return e.c.Update(context.Background(), c)
	}))
}

// annotate sets one annotation of the EggoCluster.
func (e *env) annotate(t *testing.T, ns, key, value string) {
	t.Helper()
	e.edit(t, ns, func(c *v1alpha1.EggoCluster) {
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[key] = value
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// jobs are the namespace's Jobs by name.
func (e *env) jobs(t *testing.T, ns string) map[string]batchv1.Job {
	var list batchv1.JobList
	must(t, e.c.List(context.Background(), &list, client.InNamespace(ns)))
	out := map[string]batchv1.Job{}
	for _, j := range list.Items {
		out[j.Name] = j
	}
	return out
}

func (e *env) cluster(t *testing.T, ns string) *v1alpha1.EggoCluster {
	var c v1alpha1.EggoCluster
	must(t, e.c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "demo"}, &c))
	return &c
}

func names(jobs map[string]batchv1.Job) string {
	var n []string
	for k := range jobs {
		n = append(n, k)
	}
	return strings.Join(n, ",")
}
