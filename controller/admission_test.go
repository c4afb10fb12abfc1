package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eggo-project/eggo/controller"
	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// tenant is a client of a user who may create EggoClusters and ConfigMaps
// in ns and nothing else: no Secret, no Pod, no ServiceAccount.
func (e *env) tenant(t *testing.T, ns string) client.Client {
	t.Helper()
	ctx := context.Background()
	must(t, e.c.Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "eggocluster-writer", Namespace: ns},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{v1alpha1.GroupVersion.Group}, Resources: []string{"eggoclusters"}, Verbs: []string{"get", "list", "create", "update", "patch", "delete"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "create", "update"}},
		},
	}))
	must(t, e.c.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "tenant", Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "eggocluster-writer"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "tenant-" + ns}},
	}))
	cfg, err := clientcmd.BuildConfigFromFlags("", e.api.UserKubeconfig(t, "tenant-"+ns))
	must(t, err)
	c, err := client.New(cfg, client.Options{Scheme: e.scheme})
	must(t, err)
	return c
}

// setPolicy changes one key of the policy ConfigMap as the platform
// admin would, and returns a function that puts the old value back.
func (e *env) setPolicy(t *testing.T, key, value string) func() {
	t.Helper()
	ctx := context.Background()
	var cm corev1.ConfigMap
	must(t, e.c.Get(ctx, controller.DefaultPolicyConfigMap, &cm))
	old := cm.Data[key]
	cm.Data[key] = value
	must(t, e.c.Update(ctx, &cm))
	return func() { e.setPolicy(t, key, old) }
}

// testAdmission: a user who may create EggoClusters and ConfigMaps, but
// not Secrets, Pods or ServiceAccounts, cannot make a Job run what they
// could not run themselves: another image, a hostPath, another
// ServiceAccount, a Secret that did not opt in, another application's
// ConfigMap. Each refusal names its rule; what the admin or the Secret's
// owner allowed works.
func (e *env) testAdmission(t *testing.T) {
	ns := e.api.Namespace(t, "tenant")
	ctx := context.Background()
	// The namespace's Secrets and ServiceAccounts, made by its admin: the
	// SSH key opted in to "demo", another Secret (with an "identity" key)
	// and a powerful ServiceAccount that did not.
	must(t, e.c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "ssh", Namespace: ns, Annotations: optIn()},
		Type: corev1.SecretTypeSSHAuth, Data: map[string][]byte{corev1.SSHAuthPrivateKey: []byte(testPrivateKey)}}))
	must(t, e.c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db-admin", Namespace: ns},
		Data: map[string][]byte{v1alpha1.IdentityKey: []byte("not yours")}}))
	must(t, e.c.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "deployer", Namespace: ns}}))
	must(t, e.c.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "eggo-runner", Namespace: ns,
		Labels: map[string]string{v1alpha1.LabelJobServiceAccount: "true"}}}))
	must(t, e.c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app-settings", Namespace: ns},
		Data: map[string]string{"db.conf": "password = hunter2"}}))
	tenant := e.tenant(t, ns)

	// Refused by the API server, each naming its rule.
	for name, tc := range map[string]struct {
		edit func(*v1alpha1.EggoCluster)
		want string
	}{
		"another image": {func(c *v1alpha1.EggoCluster) { c.Spec.Image = "attacker/shell:1" },
			"spec.image attacker/shell:1 is not allowed"},
		"a hostPath bundle": {func(c *v1alpha1.EggoCluster) {
			c.Spec.Bundle.Volume = v1alpha1.BundleVolume{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}
		}, "bundle.volume.hostPath is not allowed"},
		"a bundle path out of its volume": {func(c *v1alpha1.EggoCluster) { c.Spec.Bundle.Path = "../../../run/eggo/ssh" },
			"bundle.path must be relative and hold no '..'"},
	} {
		c := probeCluster(ns)
		tc.edit(c)
		err := tenant.Create(ctx, c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want refused with %q", name, err, tc.want)
		}
	}
	u := unstructuredCluster(t, ns, "any-volume", map[string]any{"secret": map[string]any{"secretName": "db-admin"}})
	if err := tenant.Create(ctx, u); err == nil {
		t.Errorf("a Secret as the bundle volume was admitted")
	}

	// Admitted, but refused by the controller before any Job: the rules
	// the API server cannot see (other objects).
	for name, tc := range map[string]struct {
		edit func(*v1alpha1.EggoCluster)
		want string
	}{
		"an unmarked ServiceAccount": {func(c *v1alpha1.EggoCluster) { c.Spec.ServiceAccountName = "deployer" },
			"spec.serviceAccountName deployer is not marked for eggo's Jobs: the namespace's admin marks one with the label eggo.io/job-service-account=true"},
		"a Secret that did not opt in, as the key": {func(c *v1alpha1.EggoCluster) { c.Spec.SSHKeySecretRef.Name = "db-admin" },
			"sshKeySecretRef db-admin: the Secret does not opt in to EggoCluster demo"},
		"a Secret that did not opt in, as the identity": {func(c *v1alpha1.EggoCluster) {
			c.Spec.IdentitySecretRef = &corev1.LocalObjectReference{Name: "db-admin"}
		}, "identitySecretRef db-admin: the Secret does not opt in to EggoCluster demo"},
		"another application's ConfigMap as the configuration": {func(c *v1alpha1.EggoCluster) {
			c.Spec.Config = v1alpha1.ConfigSource{ConfigMapRef: &v1alpha1.ConfigMapKeyRef{Name: "app-settings", Key: "db.conf"}}
		}, "config.configMapRef app-settings: the ConfigMap does not opt in to EggoCluster demo"},
	} {
		c := probeCluster(ns)
		tc.edit(c)
		must(t, tenant.Create(ctx, c))
		eventually(t, 10*time.Second, func() (bool, string) {
			got := e.cluster(t, ns)
			return got.Status.LastFailureReason == v1alpha1.ReasonInvalidSpec && strings.Contains(got.Status.LastFailure, tc.want),
				fmt.Sprintf("%s: lastFailure %q (%s), want %q", name, got.Status.LastFailure, got.Status.LastFailureReason, tc.want)
		})
		if jobs := e.jobs(t, ns); len(jobs) != 0 {
			t.Fatalf("%s: jobs %s", name, names(jobs))
		}
		must(t, tenant.Delete(ctx, c))
		e.gone(t, ns)
	}

	// Another application's ConfigMap of the name eggo writes an inline
	// configuration to: neither overwritten nor adopted.
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.ConfigMapName("demo"), Namespace: ns},
		Data: map[string]string{"app.conf": "theirs"}}
	must(t, tenant.Create(ctx, foreign))
	c := probeCluster(ns)
	must(t, tenant.Create(ctx, c))
	eventually(t, 10*time.Second, func() (bool, string) {
		got := e.cluster(t, ns)
		return strings.Contains(got.Status.LastFailure, "ConfigMap demo-config exists and is not this EggoCluster's"),
			"lastFailure " + got.Status.LastFailure
	})
	var after corev1.ConfigMap
	must(t, e.c.Get(ctx, client.ObjectKeyFromObject(foreign), &after))
	if after.ResourceVersion != foreign.ResourceVersion || len(after.OwnerReferences) != 0 {
		t.Fatalf("the foreign ConfigMap was changed: %+v", after.ObjectMeta)
	}
	must(t, tenant.Delete(ctx, c))
	e.gone(t, ns)
	must(t, e.c.Delete(ctx, foreign)) // its owner, not the tenant

	// What the admin marked, allowed and the Secret's owner opted in
	// works: the Job runs as the marked ServiceAccount, in the allowed
	// image, mounting only the Secret's key.
	restore := e.setPolicy(t, controller.PolicyKeyAllowedImages, "eggo:extra, eggo:other")
	defer restore()
	must(t, e.c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "identity", Namespace: ns,
		Annotations: map[string]string{v1alpha1.AnnotationSecretClusters: "other, demo"}},
		Data: map[string][]byte{v1alpha1.IdentityKey: []byte(testIdentity)}}))
	c = probeCluster(ns)
	c.Spec.ServiceAccountName = "eggo-runner"
	c.Spec.Image = "eggo:extra"
	c.Spec.IdentitySecretRef = &corev1.LocalObjectReference{Name: "identity"}
	must(t, tenant.Create(ctx, c))
	j := e.waitJob(t, ns, "demo-plan-g1")
	pod := j.Spec.Template.Spec
	if pod.ServiceAccountName != "eggo-runner" || pod.Containers[0].Image != "eggo:extra" {
		t.Fatalf("the Job runs as %s in %s: want eggo-runner in eggo:extra", pod.ServiceAccountName, pod.Containers[0].Image)
	}
	for _, v := range pod.Volumes {
		if v.Name == "ssh" && (len(v.Secret.Items) != 1 || v.Secret.Items[0].Key != corev1.SSHAuthPrivateKey) {
			t.Fatalf("the ssh volume mounts %+v: want the key ssh-privatekey only", v.Secret.Items)
		}
	}

	// The policy tightened after admission: the next Job is refused by the
	// controller, and the EggoCluster can still be deleted (the admission
	// policy judges only writes of the spec, not the finalizer's removal).
	e.finishJob(t, ns, "demo-plan-g1", false)
	e.setPolicy(t, controller.PolicyKeyAllowedImages, "eggo:other")
	e.annotate(t, ns, v1alpha1.PlanRequestAnnotation, "again")
	eventually(t, 10*time.Second, func() (bool, string) {
		got := e.cluster(t, ns)
		return strings.Contains(got.Status.LastFailure, "spec.image eggo:extra is not allowed"),
			"after the policy changed: lastFailure " + got.Status.LastFailure
	})
	if err := tenant.Update(ctx, e.cluster(t, ns)); err != nil {
		t.Fatalf("an update that leaves the spec alone was refused: %v", err)
	}
	must(t, tenant.Delete(ctx, c))
	e.gone(t, ns)
}
