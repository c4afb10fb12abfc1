package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// checkSpec says what keeps the spec from running ("" if nothing), before
// any Job starts, each message naming the rule: the admin's policy (the
// image, the bundle volume), the ServiceAccount's mark, every referenced
// Secret's opt-in, and (but for an apply) the referenced ConfigMap's key. An EggoCluster's
// writer may be anyone allowed to create one; every Job runs with rights
// and keys they may not have, so each of these is checked again before
// each Job, not only at admission. Secrets are read as metadata only: no
// value reaches the controller, let alone a message.
func (r *Reconciler) checkSpec(ctx context.Context, c *v1alpha1.EggoCluster, phase string) (Policy, string) {
	p, err := r.readPolicy(ctx)
	if err != nil {
		return p, err.Error() + ": no Job starts without it (the platform admin applies controller/config)"
	}
	if msg := policyRules(c, p); msg != "" {
		return p, msg
	}
	if msg := r.checkServiceAccount(ctx, c); msg != "" {
		return p, msg
	}
	if msg := r.checkSSHKeys(ctx, c); msg != "" {
		return p, msg
	}
	if ref := c.Spec.IdentitySecretRef; ref != nil {
		if msg := r.checkSecretOptIn(ctx, c, "identitySecretRef", ref.Name); msg != "" {
			return p, msg
		}
	}
	if phase == v1alpha1.PhaseApply {
		return p, "" // it applies the saved plan: the configuration is in its Secret
	}
	if ref := c.Spec.Config.ConfigMapRef; ref != nil {
		var cm corev1.ConfigMap
		if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: ref.Name}, &cm); err != nil {
			return p, fmt.Sprintf("config.configMapRef %s: %v", ref.Name, err)
		}
		// Opted in as a Secret must be: a configuration's errors quote
		// its lines, so any ConfigMap of the namespace would otherwise be
		// readable through the status by whoever writes EggoClusters.
		if !optsIn(&cm, c) {
			return p, fmt.Sprintf("config.configMapRef %s: the ConfigMap does not opt in to EggoCluster %s: whoever owns it adds %s to its annotation %s",
				ref.Name, c.Name, c.Name, v1alpha1.AnnotationSecretClusters)
		}
		if _, ok := cm.Data[ref.Key]; !ok {
			return p, fmt.Sprintf("config.configMapRef %s: no key %q", ref.Name, ref.Key)
		}
	} else if c.Spec.Config.Inline == nil {
		return p, "config: give inline or configMapRef"
	}
	return p, ""
}

// policyRules are the rules the admission policy eggo-cluster-rules
// enforces too (controller/config/policy/admission.yaml): they read the
// spec and the policy only.
func policyRules(c *v1alpha1.EggoCluster, p Policy) string {
	if img := c.Spec.Image; img != "" && !p.allowsImage(img) {
		return fmt.Sprintf("spec.image %s is not allowed: the Jobs run the controller's image (%s) or one the platform admin lists in %s of ConfigMap %s",
			img, p.JobImage, PolicyKeyAllowedImages, p.source())
	}
	if c.Spec.Image == "" && p.JobImage == "" {
		return fmt.Sprintf("spec.image is empty and ConfigMap %s sets no %s: the platform admin names the Jobs' image there", p.source(), PolicyKeyJobImage)
	}
	v := c.Spec.Bundle.Volume
	if n := countSet(v.PersistentVolumeClaim != nil, v.ConfigMap != nil, v.Image != nil, v.HostPath != nil); n != 1 {
		return "bundle.volume: give exactly one of persistentVolumeClaim, configMap, image and hostPath"
	}
	if v.HostPath != nil && !p.AllowHostPathBundle {
		return fmt.Sprintf("bundle.volume.hostPath is not allowed: it reads the node's own files; the platform admin allows it with %s: \"true\" in ConfigMap %s",
			PolicyKeyAllowHostPathBundle, p.source())
	}
	if path := c.Spec.Bundle.Path; strings.HasPrefix(path, "/") || slices.Contains(strings.Split(path, "/"), "..") {
		return "bundle.path must be relative and hold no '..': the bundle's directory inside its volume"
	}
	return ""
}

func countSet(set ...bool) int {
	n := 0
	for _, s := range set {
		if s {
			n++
		}
	}
	return n
}

// checkServiceAccount: the default (eggo-job, bound by the admin's
// job_rbac) or one the namespace's admin marked for eggo's Jobs.
func (r *Reconciler) checkServiceAccount(ctx context.Context, c *v1alpha1.EggoCluster) string {
	name := c.Spec.ServiceAccountName
	if name == "" || name == DefaultServiceAccount {
		return ""
	}
	sa := metadataOf(corev1.SchemeGroupVersion.WithKind("ServiceAccount"))
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: name}, sa); err != nil {
		return fmt.Sprintf("spec.serviceAccountName %s: %v", name, err)
	}
	if sa.Labels[v1alpha1.LabelJobServiceAccount] != "true" {
		return fmt.Sprintf("spec.serviceAccountName %s is not marked for eggo's Jobs: the namespace's admin marks one with the label %s=true (leave it empty for %s)",
			name, v1alpha1.LabelJobServiceAccount, DefaultServiceAccount)
	}
	return ""
}

// checkSSHKeys: sshKeySecretRef and every one of
// additionalSSHKeySecretRefs a Secret's name (each is a directory of the
// Job's mounts: MountSSHKeys/<name>), checked before any Secret is read,
// named once and opted in. The CRD refuses a repeated name and bounds a
// name's length, but cannot hold it to a DNS subdomain: a regular
// expression on a string of no declared length (LocalObjectReference's
// name) costs more than the API server allows a CRD's rule.
func (r *Reconciler) checkSSHKeys(ctx context.Context, c *v1alpha1.EggoCluster) string {
	fields := []string{"sshKeySecretRef"}
	names := []string{c.Spec.SSHKeySecretRef.Name}
	for i, ref := range c.Spec.AdditionalSSHKeySecretRefs {
		fields = append(fields, fmt.Sprintf("additionalSSHKeySecretRefs[%d]", i))
		names = append(names, ref.Name)
	}
	seen := map[string]string{}
	for i, name := range names {
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			return fmt.Sprintf("%s %q is not a Secret's name: %s", fields[i], name, strings.Join(errs, "; "))
		}
		if prev, ok := seen[name]; ok {
			return fmt.Sprintf("%s %s: %s names that Secret already: name each SSH key Secret once", fields[i], name, prev)
		}
		seen[name] = fields[i]
		if msg := r.checkSecretOptIn(ctx, c, fields[i], name); msg != "" {
			return msg
		}
	}
	return ""
}

// checkSecretOptIn: the Secret exists and its annotation
// eggo.io/eggoclusters names this EggoCluster (or "*"). Without the
// opt-in anyone who may write an EggoCluster could have any Secret of the
// namespace mounted into a Job as "their" key.
func (r *Reconciler) checkSecretOptIn(ctx context.Context, c *v1alpha1.EggoCluster, field, name string) string {
	s := metadataOf(corev1.SchemeGroupVersion.WithKind("Secret"))
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: name}, s); err != nil {
		return fmt.Sprintf("%s %s: %v", field, name, err)
	}
	if optsIn(s, c) {
		return ""
	}
	return fmt.Sprintf("%s %s: the Secret does not opt in to EggoCluster %s: whoever owns it adds %s to its annotation %s",
		field, name, c.Name, c.Name, v1alpha1.AnnotationSecretClusters)
}

// optsIn: o's annotation eggo.io/eggoclusters names the EggoCluster, or
// is "*".
func optsIn(o metav1.Object, c *v1alpha1.EggoCluster) bool {
	for _, n := range strings.Split(o.GetAnnotations()[v1alpha1.AnnotationSecretClusters], ",") {
		if n = strings.TrimSpace(n); n == c.Name || n == "*" {
			return true
		}
	}
	return false
}

// metadataOf is an empty object of kind gvk read as metadata only.
func metadataOf(gvk schema.GroupVersionKind) *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.APIVersion, m.Kind = gvk.ToAPIVersionAndKind()
	return m
}

// writeInlineConfig keeps an inline configuration in the ConfigMap
// <cluster>-config, controlled by the cluster, which the plan and destroy
// Jobs mount. A ConfigMap of that name that is not the cluster's (another
// application's, or another EggoCluster's) is never written or adopted:
// the refusal comes back as the spec's problem.
func (r *Reconciler) writeInlineConfig(ctx context.Context, c *v1alpha1.EggoCluster) (string, error) {
	if c.Spec.Config.Inline == nil {
		return "", nil
	}
	name := v1alpha1.ConfigMapName(c.Name)
	var cur corev1.ConfigMap
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: name}, &cur)
	switch {
	case apierrors.IsNotFound(err):
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: c.Namespace, Labels: map[string]string{v1alpha1.LabelCluster: c.Name}},
			Data:       map[string]string{v1alpha1.ConfigFile: *c.Spec.Config.Inline},
		}
		if err := controllerutil.SetControllerReference(c, cm, r.Scheme); err != nil {
			return "", err
		}
		return "", r.Create(ctx, cm)
	case err != nil:
		return "", err
	case !metav1.IsControlledBy(&cur, c):
		return fmt.Sprintf("config.inline: ConfigMap %s exists and is not this EggoCluster's (no controller reference to it): "+
			"eggo keeps the inline configuration there, so it neither overwrites nor adopts it; rename one of the two", name), nil
	}
	cur.Data = map[string]string{v1alpha1.ConfigFile: *c.Spec.Config.Inline}
	return "", r.Update(ctx, &cur)
}
