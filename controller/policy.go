package controller

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Policy is what the platform admin allows an EggoCluster: the keys of
// the ConfigMap eggo-system/eggo-policy (controller/config/policy). The
// ValidatingAdmissionPolicy eggo-cluster-rules reads the same ConfigMap
// as its parameters, and the controller checks it again before every Job
// (policyRules): the admission policy keeps a bad spec out, the
// controller keeps an EggoCluster admitted before the policy tightened
// from running anything it no longer allows.
type Policy struct {
	// JobImage is the image of every Job whose spec names none: the
	// controller's own image (the kustomization copies it here).
	JobImage string
	// AllowedImages are the other images spec.image may name.
	AllowedImages []string
	// AllowHostPathBundle lets bundle.volume be a hostPath, which reads
	// the node's own files: off unless the admin turns it on.
	AllowHostPathBundle bool
	// StateNamespaces gives a namespace's EggoClusters' Jobs the namespace
	// of their state, saved plans and access Secrets (keys
	// stateNamespace.<namespace>): the only one where the Jobs' role
	// reaches Secrets (rbac/job_state_role.yaml). A namespace not listed
	// keeps them itself, and its Jobs need that role there.
	StateNamespaces map[string]string
	// From is the ConfigMap it was read from, which a refusal names
	// (empty: DefaultPolicyConfigMap).
	From client.ObjectKey
}

// source is the policy ConfigMap a message names.
func (p Policy) source() client.ObjectKey {
	if p.From.Name == "" {
		return DefaultPolicyConfigMap
	}
	return p.From
}

// The policy ConfigMap's keys.
const (
	PolicyKeyJobImage            = "jobImage"
	PolicyKeyAllowedImages       = "allowedImages"
	PolicyKeyAllowHostPathBundle = "allowHostPathBundle"
	// PolicyKeyStateNamespacePrefix + a namespace: that namespace's state
	// namespace.
	PolicyKeyStateNamespacePrefix = "stateNamespace."
)

// DefaultPolicyConfigMap is where the controller finds its policy
// (eggo-controller run -policy).
var DefaultPolicyConfigMap = client.ObjectKey{Namespace: "eggo-system", Name: "eggo-policy"}

// PolicyFromConfigMap reads a policy ConfigMap's data. allowedImages is a
// list separated by commas or new lines; allowHostPathBundle is "true" or
// not set ("false").
func PolicyFromConfigMap(cm *corev1.ConfigMap) (Policy, error) {
	p := Policy{JobImage: strings.TrimSpace(cm.Data[PolicyKeyJobImage]), From: client.ObjectKeyFromObject(cm)}
	for _, f := range strings.FieldsFunc(cm.Data[PolicyKeyAllowedImages], func(r rune) bool { return r == ',' || r == '\n' }) {
		if f = strings.TrimSpace(f); f != "" {
			p.AllowedImages = append(p.AllowedImages, f)
		}
	}
	switch v := strings.TrimSpace(cm.Data[PolicyKeyAllowHostPathBundle]); v {
	case "true":
		p.AllowHostPathBundle = true
	case "", "false":
	default:
		return p, fmt.Errorf("ConfigMap %s/%s: %s is %q: want true or false", cm.Namespace, cm.Name, PolicyKeyAllowHostPathBundle, v)
	}
	for k, v := range cm.Data {
		ns, ok := strings.CutPrefix(k, PolicyKeyStateNamespacePrefix)
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		for _, name := range []string{ns, v} {
			if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
				return p, fmt.Errorf("ConfigMap %s/%s: %s: %q is not a namespace name: %s", cm.Namespace, cm.Name, k, name, strings.Join(errs, "; "))
			}
		}
		if p.StateNamespaces == nil {
			p.StateNamespaces = map[string]string{}
		}
		p.StateNamespaces[ns] = v
	}
	return p, nil
}

// StateNamespace is where the Jobs of namespace ns keep their state.
func (p Policy) StateNamespace(ns string) string {
	return cmp.Or(p.StateNamespaces[ns], ns)
}

// readPolicy reads the policy ConfigMap past the cache, at every plan:
// an admin's edit holds from the next Job on. Without it no Job starts.
func (r *Reconciler) readPolicy(ctx context.Context) (Policy, error) {
	key := r.PolicyConfigMap
	if key.Name == "" {
		key = DefaultPolicyConfigMap
	}
	var cm corev1.ConfigMap
	if err := r.APIReader.Get(ctx, key, &cm); err != nil {
		return Policy{}, fmt.Errorf("the controller's policy, ConfigMap %s: %v", key, err)
	}
	return PolicyFromConfigMap(&cm)
}

// allowsImage: the Jobs' own image, or one the admin listed.
func (p Policy) allowsImage(image string) bool {
	return image == p.JobImage || slices.Contains(p.AllowedImages, image)
}
