package controller

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

func TestPolicyFromConfigMap(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "eggo-system", Name: "eggo-policy"}, Data: map[string]string{
		PolicyKeyJobImage: " eggo.io/eggo:1 ", PolicyKeyAllowedImages: "a:1, b:2\nc:3,,", PolicyKeyAllowHostPathBundle: "true",
	}}
	p, err := PolicyFromConfigMap(cm)
	if err != nil {
		t.Fatal(err)
	}
	if p.JobImage != "eggo.io/eggo:1" || strings.Join(p.AllowedImages, "|") != "a:1|b:2|c:3" || !p.AllowHostPathBundle {
		t.Fatalf("policy %+v", p)
	}
	// A refusal names the ConfigMap the policy came from (-policy).
	cm.Namespace, cm.Name = "platform", "eggo-rules"
	p, err = PolicyFromConfigMap(cm)
	if err != nil {
		t.Fatal(err)
	}
	msg := policyRules(&v1alpha1.EggoCluster{Spec: v1alpha1.EggoClusterSpec{Image: "evil:1"}}, p)
	if !strings.Contains(msg, "ConfigMap platform/eggo-rules") {
		t.Fatalf("refusal %q does not name the policy's ConfigMap", msg)
	}
	cm.Data[PolicyKeyAllowHostPathBundle] = "yes"
	if _, err := PolicyFromConfigMap(cm); err == nil || !strings.Contains(err.Error(), "platform/eggo-rules: allowHostPathBundle is \"yes\"") {
		t.Fatalf("a switch that is not true or false: %v", err)
	}
	cm.Data[PolicyKeyAllowHostPathBundle] = "false"

	// A namespace's state namespace, and a namespace without one.
	cm.Data["stateNamespace.team-a"] = " team-a-state "
	if p, err = PolicyFromConfigMap(cm); err != nil || p.StateNamespace("team-a") != "team-a-state" || p.StateNamespace("team-b") != "team-b" {
		t.Fatalf("state namespaces %v, %v", p.StateNamespaces, err)
	}
	for key, value := range map[string]string{"stateNamespace.team-a": "Team_A", "stateNamespace.": "x"} {
		bad := cm.DeepCopy()
		bad.Data[key] = value
		if _, err := PolicyFromConfigMap(bad); err == nil || !strings.Contains(err.Error(), "platform/eggo-rules: "+key+": ") {
			t.Errorf("%s: %q: %v, want a refusal naming the key", key, value, err)
		}
	}
}

// TestPolicyRules: each rule the admission policy enforces, checked again
// by the controller, refuses what it should with a message naming it,
// and lets the rest through.
func TestPolicyRules(t *testing.T) {
	p := Policy{JobImage: "eggo.io/eggo:1", AllowedImages: []string{"eggo.io/eggo:2"}}
	pvc := v1alpha1.BundleVolume{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "b"}}
	for name, tc := range map[string]struct {
		edit   func(*v1alpha1.EggoCluster, *Policy)
		refuse string // "": allowed
	}{
		"defaults":               {func(*v1alpha1.EggoCluster, *Policy) {}, ""},
		"the job image, named":   {func(c *v1alpha1.EggoCluster, _ *Policy) { c.Spec.Image = "eggo.io/eggo:1" }, ""},
		"an allowed image":       {func(c *v1alpha1.EggoCluster, _ *Policy) { c.Spec.Image = "eggo.io/eggo:2" }, ""},
		"another image":          {func(c *v1alpha1.EggoCluster, _ *Policy) { c.Spec.Image = "evil:1" }, "spec.image evil:1 is not allowed"},
		"no image anywhere":      {func(_ *v1alpha1.EggoCluster, p *Policy) { p.JobImage = "" }, "sets no jobImage"},
		"a nested relative path": {func(c *v1alpha1.EggoCluster, _ *Policy) { c.Spec.Bundle.Path = "v1.36.5/amd64" }, ""},
		"a path with ..":         {func(c *v1alpha1.EggoCluster, _ *Policy) { c.Spec.Bundle.Path = "a/../../x" }, "bundle.path must be relative"},
		"an absolute path":       {func(c *v1alpha1.EggoCluster, _ *Policy) { c.Spec.Bundle.Path = "/etc" }, "bundle.path must be relative"},
		"no volume":              {func(c *v1alpha1.EggoCluster, _ *Policy) { c.Spec.Bundle.Volume = v1alpha1.BundleVolume{} }, "exactly one of"},
		"two volumes": {func(c *v1alpha1.EggoCluster, _ *Policy) {
			c.Spec.Bundle.Volume.Image = &corev1.ImageVolumeSource{Reference: "x"}
		}, "exactly one of"},
		"a hostPath": {func(c *v1alpha1.EggoCluster, _ *Policy) {
			c.Spec.Bundle.Volume = v1alpha1.BundleVolume{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}
		}, "bundle.volume.hostPath is not allowed"},
		"a hostPath, allowed": {func(c *v1alpha1.EggoCluster, p *Policy) {
			c.Spec.Bundle.Volume = v1alpha1.BundleVolume{HostPath: &corev1.HostPathVolumeSource{Path: "/srv"}}
			p.AllowHostPathBundle = true
		}, ""},
	} {
		c := &v1alpha1.EggoCluster{Spec: v1alpha1.EggoClusterSpec{Bundle: v1alpha1.BundleSource{Volume: pvc}}}
		pol := p
		tc.edit(c, &pol)
		got := policyRules(c, pol)
		if (tc.refuse == "") != (got == "") || !strings.Contains(got, tc.refuse) {
			t.Errorf("%s: %q, want %q", name, got, tc.refuse)
		}
	}
}

// TestBundleVolumeReadOnly: a claim is mounted read-only whatever the
// spec says; the spec is not changed.
func TestBundleVolumeReadOnly(t *testing.T) {
	b := v1alpha1.BundleVolume{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "b"}}
	v := b.VolumeSource()
	if v.PersistentVolumeClaim == nil || !v.PersistentVolumeClaim.ReadOnly || b.PersistentVolumeClaim.ReadOnly {
		t.Fatalf("volume %+v from %+v", v.PersistentVolumeClaim, b.PersistentVolumeClaim)
	}
}

// TestApproveCommand: the printed command names the namespace and
// overwrites an earlier approval.
func TestApproveCommand(t *testing.T) {
	c := &v1alpha1.EggoCluster{ObjectMeta: metav1.ObjectMeta{Name: "prod-a", Namespace: "clusters"}}
	c.Status.LastPlanHash = strings.Repeat("f", 64)
	want := "kubectl -n clusters annotate --overwrite eggocluster prod-a eggo.io/approve-plan=" + c.Status.LastPlanHash
	if got := ApproveCommand(c); got != want {
		t.Fatalf("%s\nwant %s", got, want)
	}
}
