package controller_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

func sshKeyRefs(names ...string) []corev1.LocalObjectReference {
	out := make([]corev1.LocalObjectReference, len(names))
	for i, n := range names {
		out[i] = corev1.LocalObjectReference{Name: n}
	}
	return out
}

// testAdditionalSSHKeys: each of additionalSSHKeySecretRefs is mounted
// read-only, its ssh-privatekey only, at
// /var/run/eggo/ssh-keys/<name>/ssh-privatekey, in a volume of its own
// named by its index (a name too long for a volume's works); one that did
// not opt in, or is no Secret's name, is refused by the controller naming
// it; the CRD refuses a name repeated or sshKeySecretRef's, an empty or
// too long one, and more than 16.
func (e *env) testAdditionalSSHKeys(t *testing.T) {
	ctx := context.Background()
	ns := e.api.Namespace(t, "ssh-keys")
	long := strings.Repeat("rack-b.", 20) + "key" // 143 characters: no volume's name
	for name, ann := range map[string]map[string]string{"ssh": optIn(), "identity": optIn(), "pool-b": optIn(), long: optIn(), "db-admin": nil} {
		must(t, e.c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: ann},
			Type: corev1.SecretTypeSSHAuth, Data: map[string][]byte{corev1.SSHAuthPrivateKey: []byte(testPrivateKey)}}))
	}

	seventeen := make([]string, 17)
	for i := range seventeen {
		seventeen[i] = fmt.Sprintf("key-%d", i)
	}
	for name, refs := range map[string][]string{
		"sshkeysecretref-again": {"pool-b", "ssh"}, "twice": {"pool-b", "pool-b"},
		"empty": {""}, "too-long": {strings.Repeat("a", 254)}, "seventeen": seventeen,
	} {
		c := probeCluster(ns)
		c.Name = name
		c.Spec.AdditionalSSHKeySecretRefs = sshKeyRefs(refs...)
		if err := e.c.Create(ctx, c); err == nil {
			t.Errorf("%s: the API server accepted additionalSSHKeySecretRefs %q", name, refs)
		}
	}

	// Admitted, refused by the controller before any Job.
	for refs, want := range map[[2]string]string{
		{"pool-b", "db-admin"}: "additionalSSHKeySecretRefs[1] db-admin: the Secret does not opt in to EggoCluster demo",
		{"pool-b", "../ssh"}:   `additionalSSHKeySecretRefs[1] "../ssh" is not a Secret's name`,
		{"Pool_B", "pool-b"}:   `additionalSSHKeySecretRefs[0] "Pool_B" is not a Secret's name`,
	} {
		c := probeCluster(ns)
		c.Spec.AdditionalSSHKeySecretRefs = sshKeyRefs(refs[:]...)
		must(t, e.c.Create(ctx, c))
		eventually(t, 10*time.Second, func() (bool, string) {
			got := e.cluster(t, ns)
			return got.Status.LastFailureReason == v1alpha1.ReasonInvalidSpec && strings.Contains(got.Status.LastFailure, want),
				fmt.Sprintf("lastFailure %q (%s), want %q", got.Status.LastFailure, got.Status.LastFailureReason, want)
		})
		if jobs := e.jobs(t, ns); len(jobs) != 0 {
			t.Fatalf("%q: a Job: %s", refs, names(jobs))
		}
		must(t, e.c.Delete(ctx, c))
		e.gone(t, ns)
	}

	c := probeCluster(ns)
	c.Spec.IdentitySecretRef = &corev1.LocalObjectReference{Name: "identity"}
	c.Spec.AdditionalSSHKeySecretRefs = sshKeyRefs("pool-b", long)
	must(t, e.c.Create(ctx, c))
	j := e.waitJob(t, ns, "demo-plan-g1")
	checkJob(t, &j)
	checkAdditionalSSHKeys(t, &j, c.Spec.SSHKeySecretRef.Name, map[string]string{"ssh-0": "pool-b", "ssh-1": long})
	if got := v1alpha1.SSHKeyPath("pool-b"); got != "/var/run/eggo/ssh-keys/pool-b/ssh-privatekey" {
		t.Errorf("SSHKeyPath(pool-b) = %s", got)
	}
	e.finishJob(t, ns, "demo-plan-g1", false)
	must(t, e.c.Delete(ctx, c))
	e.gone(t, ns)
}

// checkAdditionalSSHKeys: j mounts each Secret of want (by volume name)
// as the ssh volume is mounted, at /var/run/eggo/ssh-keys/<name>, and
// the ssh volume (Secret first) as before and at
// /var/run/eggo/ssh-keys/<first>: every key at the path of its name.
func checkAdditionalSSHKeys(t *testing.T, j *batchv1.Job, first string, want map[string]string) {
	t.Helper()
	pod := j.Spec.Template.Spec
	key := []corev1.KeyToPath{{Key: corev1.SSHAuthPrivateKey, Path: corev1.SSHAuthPrivateKey}}
	found := map[string]bool{}
	for _, v := range pod.Volumes {
		secret, ok := want[v.Name]
		if !ok {
			continue
		}
		s := v.Secret
		if s == nil || s.SecretName != secret || !reflect.DeepEqual(s.Items, key) || s.DefaultMode == nil || *s.DefaultMode != 0o400 ||
			s.Optional == nil || !*s.Optional {
			t.Errorf("volume %s: %+v, want Secret %s's ssh-privatekey only, mode 0400, optional", v.Name, v.VolumeSource, secret)
		}
		found[v.Name] = true
	}
	mounts := map[string][]string{}
	for _, m := range pod.Containers[0].VolumeMounts {
		if _, key := want[m.Name]; (key || m.Name == "ssh") && !m.ReadOnly {
			t.Errorf("volume %s mounted writable at %s", m.Name, m.MountPath)
		}
		mounts[m.Name] = append(mounts[m.Name], m.MountPath)
	}
	for name, secret := range want {
		if m := mounts[name]; !found[name] || !reflect.DeepEqual(m, []string{"/var/run/eggo/ssh-keys/" + secret}) {
			t.Errorf("Secret %s: volume %s found %v, mounted at %v: want at /var/run/eggo/ssh-keys/%s", secret, name, found[name], m, secret)
		}
	}
	if m := mounts["ssh"]; !reflect.DeepEqual(m, []string{v1alpha1.MountSSH, "/var/run/eggo/ssh-keys/" + first}) {
		t.Errorf("the ssh volume is mounted at %v, want %s and /var/run/eggo/ssh-keys/%s", m, v1alpha1.MountSSH, first)
	}
}
