package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// checkSpec says what is wrong with the spec's references before a Job
// would fail on it ("" if nothing): the SSH key must be a Secret of type
// kubernetes.io/ssh-auth holding ssh-privatekey, the identity a Secret
// holding "identity", a referenced ConfigMap must hold its key. Only
// presence is checked: no value is read into a message.
func (r *Reconciler) checkSpec(ctx context.Context, c *v1alpha1.EggoCluster) string {
	var ssh corev1.Secret
	key := client.ObjectKey{Namespace: c.Namespace, Name: c.Spec.SSHKeySecretRef.Name}
	if err := r.APIReader.Get(ctx, key, &ssh); err != nil {
		return fmt.Sprintf("sshKeySecretRef %s: %v", key.Name, err)
	}
	if ssh.Type != corev1.SecretTypeSSHAuth || len(ssh.Data[corev1.SSHAuthPrivateKey]) == 0 {
		return fmt.Sprintf("sshKeySecretRef %s: want a Secret of type %s with %s, got type %s",
			key.Name, corev1.SecretTypeSSHAuth, corev1.SSHAuthPrivateKey, ssh.Type)
	}
	if ref := c.Spec.IdentitySecretRef; ref != nil {
		var id corev1.Secret
		if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: ref.Name}, &id); err != nil {
			return fmt.Sprintf("identitySecretRef %s: %v", ref.Name, err)
		}
		if len(id.Data[v1alpha1.IdentityKey]) == 0 {
			return fmt.Sprintf("identitySecretRef %s: no key %q", ref.Name, v1alpha1.IdentityKey)
		}
	}
	if ref := c.Spec.Config.ConfigMapRef; ref != nil {
		var cm corev1.ConfigMap
		if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: ref.Name}, &cm); err != nil {
			return fmt.Sprintf("config.configMapRef %s: %v", ref.Name, err)
		}
		if _, ok := cm.Data[ref.Key]; !ok {
			return fmt.Sprintf("config.configMapRef %s: no key %q", ref.Name, ref.Key)
		}
	} else if c.Spec.Config.Inline == nil {
		return "config: give inline or configMapRef"
	}
	return ""
}

// writeInlineConfig keeps an inline configuration in the ConfigMap
// <cluster>-config, owned by the cluster, which the plan and destroy Jobs
// mount.
func (r *Reconciler) writeInlineConfig(ctx context.Context, c *v1alpha1.EggoCluster) error {
	if c.Spec.Config.Inline == nil {
		return nil
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: v1alpha1.ConfigMapName(c.Name), Namespace: c.Namespace,
		Labels: map[string]string{v1alpha1.LabelCluster: c.Name},
	}}
	var cur corev1.ConfigMap
	err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(cm), &cur)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err == nil {
		cm = &cur
	}
	cm.Data = map[string]string{v1alpha1.ConfigFile: *c.Spec.Config.Inline}
	if err := controllerutil.SetControllerReference(c, cm, r.Scheme); err != nil {
		return err
	}
	if apierrors.IsNotFound(err) {
		return r.Create(ctx, cm)
	}
	return r.Update(ctx, cm)
}
