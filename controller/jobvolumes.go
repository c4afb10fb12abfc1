package controller

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// volumes of a Job: the configuration (plan, destroy), the SSH keys, the
// identity, the bundle and a work directory. An apply Job reads its saved
// plan from the state namespace through the API: a pod mounts Secrets of
// its own namespace only.
func volumes(c *v1alpha1.EggoCluster, r jobRequest) []corev1.Volume {
	mode := readOnlyMode
	// secret mounts one key of a Secret the user named: it shows the Job
	// only the key eggo uses, whatever else it holds. The key is
	// optional to the kubelet: the controller reads Secrets' metadata
	// only, so a Secret without it is found by eggo, which fails at once
	// naming the file, instead of a pod that waits for its volume until
	// the Job's deadline.
	secret := func(name, key string) corev1.VolumeSource {
		return corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name, DefaultMode: &mode,
			Items: []corev1.KeyToPath{{Key: key, Path: key}}, Optional: ptr(true)}}
	}
	work := corev1.Volume{Name: "work", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	if r.phase == v1alpha1.PhaseRelease {
		return []corev1.Volume{work} // no key, bundle or configuration: it runs no eggo
	}
	v := []corev1.Volume{
		{Name: "ssh", VolumeSource: secret(c.Spec.SSHKeySecretRef.Name, corev1.SSHAuthPrivateKey)},
		{Name: "bundle", VolumeSource: c.Spec.Bundle.Volume.VolumeSource()},
		work,
	}
	if r.phase != v1alpha1.PhaseApply {
		v = append(v, corev1.Volume{Name: "config", VolumeSource: configVolume(c)})
	}
	if c.Spec.IdentitySecretRef != nil {
		v = append(v, corev1.Volume{Name: "identity", VolumeSource: secret(c.Spec.IdentitySecretRef.Name, v1alpha1.IdentityKey)})
	}
	for i, ref := range c.Spec.AdditionalSSHKeySecretRefs {
		v = append(v, corev1.Volume{Name: additionalSSHKeyVolume(i), VolumeSource: secret(ref.Name, corev1.SSHAuthPrivateKey)})
	}
	return v
}

// additionalSSHKeyVolume names the volume of
// spec.additionalSSHKeySecretRefs[i] by its index: a Secret's name may be
// too long for a volume's (a DNS label).
func additionalSSHKeyVolume(i int) string { return "ssh-" + strconv.Itoa(i) }

// configVolume is the inline configuration's ConfigMap (the controller
// writes it) or the referenced key, seen as cluster.hcl either way.
func configVolume(c *v1alpha1.EggoCluster) corev1.VolumeSource {
	name, key := v1alpha1.ConfigMapName(c.Name), v1alpha1.ConfigFile
	if ref := c.Spec.Config.ConfigMapRef; ref != nil {
		name, key = ref.Name, ref.Key
	}
	return corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: name},
		Items:                []corev1.KeyToPath{{Key: key, Path: v1alpha1.ConfigFile}},
	}}
}

// mounts: everything but the work directory read-only.
func mounts(c *v1alpha1.EggoCluster, r jobRequest) []corev1.VolumeMount {
	if r.phase == v1alpha1.PhaseRelease {
		return []corev1.VolumeMount{{Name: "work", MountPath: v1alpha1.MountWork}}
	}
	m := []corev1.VolumeMount{
		{Name: "ssh", MountPath: v1alpha1.MountSSH, ReadOnly: true},
		// The first key again among the others, by its name (MountSSHKeys).
		{Name: "ssh", MountPath: v1alpha1.SSHKeyDir(c.Spec.SSHKeySecretRef.Name), ReadOnly: true},
		{Name: "bundle", MountPath: v1alpha1.MountBundle, ReadOnly: true},
		{Name: "work", MountPath: v1alpha1.MountWork},
	}
	if r.phase != v1alpha1.PhaseApply {
		m = append(m, corev1.VolumeMount{Name: "config", MountPath: v1alpha1.MountConfig, ReadOnly: true})
	}
	if c.Spec.IdentitySecretRef != nil {
		m = append(m, corev1.VolumeMount{Name: "identity", MountPath: v1alpha1.MountIdentity, ReadOnly: true})
	}
	for i, ref := range c.Spec.AdditionalSSHKeySecretRefs {
		m = append(m, corev1.VolumeMount{Name: additionalSSHKeyVolume(i), MountPath: v1alpha1.SSHKeyDir(ref.Name), ReadOnly: true})
	}
	return m
}
