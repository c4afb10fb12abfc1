// Package certs is eggo-certs: the part of cert-manager (cert-manager.io/v1,
// the API of v1.21.1) that Cluster API's components and `clusterctl init`
// use, built from Go's crypto/x509 alone (DESIGN.md §0 item 6, §3):
//
//   - Issuers and ClusterIssuers of type selfSigned or ca become Ready;
//     other types are reported not Ready (unsupported).
//   - A Certificate is issued into its kubernetes.io/tls Secret (tls.crt,
//     tls.key, ca.crt, cert-manager's annotations), reissued when its spec
//     or its issuer changes, when the Secret is missing or does not hold
//     a valid key pair for it, and renewed at status.renewalTime.
//   - CA injection, as cert-manager's cainjector: webhook configurations,
//     CRDs (conversion webhook) and APIServices annotated
//     cert-manager.io/inject-ca-from (NS/CERTIFICATE) or
//     cert-manager.io/inject-ca-from-secret (NS/SECRET, the Secret
//     annotated cert-manager.io/allow-direct-injection: "true") get the
//     ca.crt of that Secret in every caBundle.
//
// No webhook, no CertificateRequest, no ACME: cert-manager.io objects are
// not validated on admission, and a Certificate is signed in one step.
// Its kinds are read as unstructured objects: no cert-manager Go package.
package certs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
)

// The role (make rbac → config/certmanager/role.yaml, ClusterRole
// eggo-certs): what the reconcilers and the manager's leader election
// use. Secrets are read, listed and watched (issued ones and CA key
// pairs, cluster-wide as cert-manager's) and written; the objects CA
// bundles are injected into are only updated, never created or deleted.
//
// +kubebuilder:rbac:groups=cert-manager.io,resources=certificates;issuers;clusterissuers,verbs=get;list;watch
// +kubebuilder:rbac:groups=cert-manager.io,resources=certificates/status;issuers/status;clusterissuers/status,verbs=patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations;mutatingwebhookconfigurations,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=apiregistration.k8s.io,resources=apiservices,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;update
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Group is cert-manager's API group; Version the one eggo-certs serves.
const (
	Group   = "cert-manager.io"
	Version = "v1"
)

// cert-manager's annotations and labels (pkg/apis/certmanager/v1/types.go).
const (
	CertificateNameKey     = "cert-manager.io/certificate-name"
	IssuerNameKey          = "cert-manager.io/issuer-name"
	IssuerKindKey          = "cert-manager.io/issuer-kind"
	IssuerGroupKey         = "cert-manager.io/issuer-group"
	CommonNameKey          = "cert-manager.io/common-name"
	AltNamesKey            = "cert-manager.io/alt-names"
	IPSANsKey              = "cert-manager.io/ip-sans"
	URISANsKey             = "cert-manager.io/uri-sans"
	EmailSANsKey           = "cert-manager.io/email-sans"
	InjectFromAnnotation   = "cert-manager.io/inject-ca-from"
	InjectSecretAnnotation = "cert-manager.io/inject-ca-from-secret"
	AllowDirectInjection   = "cert-manager.io/allow-direct-injection"
	// PartOfLabel marks the Secrets cert-manager writes.
	PartOfLabel = "controller.cert-manager.io/fao"
)

// The Secret's keys (kubernetes.io/tls, plus ca.crt).
const (
	TLSCert = "tls.crt"
	TLSKey  = "tls.key"
	CACert  = "ca.crt"
)

// The kinds eggo-certs reconciles.
var (
	CertificateGVK   = schema.GroupVersionKind{Group: Group, Version: Version, Kind: "Certificate"}
	IssuerGVK        = schema.GroupVersionKind{Group: Group, Version: Version, Kind: "Issuer"}
	ClusterIssuerGVK = schema.GroupVersionKind{Group: Group, Version: Version, Kind: "ClusterIssuer"}
)

// Options are eggo-certs' settings.
type Options struct {
	// ClusterResourceNamespace holds the Secrets of ClusterIssuers of type
	// ca (cert-manager's --cluster-resource-namespace; default cert-manager).
	ClusterResourceNamespace string
	// Controller are the controllers' options (may be empty).
	Controller controller.Options
}

// Setup registers every reconciler of eggo-certs with mgr.
func Setup(mgr ctrl.Manager, o Options) error {
	if o.ClusterResourceNamespace == "" {
		o.ClusterResourceNamespace = "cert-manager"
	}
	for _, gvk := range []schema.GroupVersionKind{IssuerGVK, ClusterIssuerGVK} {
		r := &IssuerReconciler{Client: mgr.GetClient(), Reader: mgr.GetCache(), Kind: gvk.Kind,
			ClusterResourceNamespace: o.ClusterResourceNamespace}
		if err := r.SetupWithManager(mgr, o.Controller); err != nil {
			return err
		}
	}
	c := &CertificateReconciler{Client: mgr.GetClient(), Reader: mgr.GetCache(), APIReader: mgr.GetAPIReader(),
		ClusterResourceNamespace: o.ClusterResourceNamespace}
	if err := c.SetupWithManager(mgr, o.Controller); err != nil {
		return err
	}
	for _, t := range injectables {
		r := &InjectorReconciler{Client: mgr.GetClient(), Reader: mgr.GetCache(), APIReader: mgr.GetAPIReader(), Target: t}
		if err := r.SetupWithManager(mgr, o.Controller); err != nil {
			return err
		}
	}
	return nil
}

// newObject is an empty unstructured object of gvk.
func newObject(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}

// newList is an empty list of gvk's objects.
func newList(gvk schema.GroupVersionKind) *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	return l
}

// decode converts an unstructured object's field into out.
func decode(u *unstructured.Unstructured, field string, out any) error {
	m, _, err := unstructured.NestedMap(u.Object, field)
	if err != nil {
		return err
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(m, out)
}

// Condition is cert-manager's condition (type, status, reason, message,
// lastTransitionTime, observedGeneration).
type Condition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	Reason             string `json:"reason,omitempty"`
	Message            string `json:"message,omitempty"`
	LastTransitionTime string `json:"lastTransitionTime,omitempty"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
}

// readyCondition is obj's Ready condition, with a transition time kept
// from the current one when its status does not change.
func readyCondition(obj *unstructured.Unstructured, ready bool, reason, message string) Condition {
	c := Condition{Type: "Ready", Status: "False", Reason: reason, Message: message, ObservedGeneration: obj.GetGeneration()}
	if ready {
		c.Status = "True"
	}
	c.LastTransitionTime = time.Now().UTC().Format(time.RFC3339)
	for _, old := range conditions(obj) {
		if old.Type == "Ready" && old.Status == c.Status && old.LastTransitionTime != "" {
			c.LastTransitionTime = old.LastTransitionTime
		}
	}
	return c
}

// conditions are obj's status.conditions.
func conditions(obj *unstructured.Unstructured) []Condition {
	var st struct {
		Conditions []Condition `json:"conditions"`
	}
	_ = decode(obj, "status", &st)
	return st.Conditions
}

// IsReady says whether obj's Ready condition is True (for its generation).
func IsReady(obj *unstructured.Unstructured) bool {
	for _, c := range conditions(obj) {
		if c.Type == "Ready" {
			return c.Status == "True" && (c.ObservedGeneration == 0 || c.ObservedGeneration == obj.GetGeneration())
		}
	}
	return false
}

// patchStatus merges status into obj's status when it changes a field.
func patchStatus(ctx context.Context, c client.Client, obj *unstructured.Unstructured, status map[string]any) error {
	current, _, _ := unstructured.NestedMap(obj.Object, "status")
	changed := false
	for k, v := range status {
		if canonical(v) != canonical(current[k]) {
			changed = true
		}
	}
	if !changed {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return err
	}
	return c.Status().Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch))
}

// canonical is v as JSON with sorted keys (a struct and the map the
// server returned compare equal).
func canonical(v any) string {
	b, _ := json.Marshal(v)
	var x any
	_ = json.Unmarshal(b, &x)
	b, _ = json.Marshal(x)
	return string(b)
}

// splitRef splits "NS/NAME".
func splitRef(ref string) (types.NamespacedName, error) {
	ns, name, ok := strings.Cut(ref, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return types.NamespacedName{}, fmt.Errorf("%q is not NAMESPACE/NAME", ref)
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}
