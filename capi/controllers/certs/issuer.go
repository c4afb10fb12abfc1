package certs

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// IssuerSpec is the part of an Issuer's (or ClusterIssuer's) spec
// eggo-certs reads: its type.
type IssuerSpec struct {
	SelfSigned *struct{} `json:"selfSigned,omitempty"`
	CA         *struct {
		SecretName string `json:"secretName"`
	} `json:"ca,omitempty"`
	// Any other type (acme, vault, venafi) is not served.
	ACME   map[string]any `json:"acme,omitempty"`
	Vault  map[string]any `json:"vault,omitempty"`
	Venafi map[string]any `json:"venafi,omitempty"`
}

// IssuerReconciler reports Issuers (or ClusterIssuers, by Kind) Ready as
// cert-manager does: selfSigned at once, ca once its Secret holds a valid
// CA key pair.
type IssuerReconciler struct {
	Client client.Client
	Reader client.Reader // cached
	// Kind is Issuer or ClusterIssuer.
	Kind                     string
	ClusterResourceNamespace string
}

// SetupWithManager registers the reconciler: its kind, and the Secrets
// ca issuers name.
func (r *IssuerReconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(newObject(IssuerGVK.GroupVersion().WithKind(r.Kind))).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.secretToIssuers)).
		WithOptions(opts).
		Named("certs-" + r.Kind).
		Complete(r)
}

// secretToIssuers are the ca issuers of this kind whose Secret o is.
func (r *IssuerReconciler) secretToIssuers(ctx context.Context, o client.Object) []reconcile.Request {
	var reqs []reconcile.Request
	for _, key := range caIssuersOf(ctx, r.Reader, r.Kind, r.ClusterResourceNamespace, o.GetNamespace(), o.GetName()) {
		reqs = append(reqs, reconcile.Request{NamespacedName: key})
	}
	return reqs
}

// caIssuersOf are the issuers of kind of type ca whose Secret is ns/name.
func caIssuersOf(ctx context.Context, c client.Reader, kind, clusterNS, ns, name string) []types.NamespacedName {
	list := newList(IssuerGVK.GroupVersion().WithKind(kind))
	var opts []client.ListOption
	if kind == IssuerGVK.Kind {
		opts = append(opts, client.InNamespace(ns))
	} else if ns != clusterNS {
		return nil
	}
	if err := c.List(ctx, list, opts...); err != nil {
		return nil
	}
	var out []types.NamespacedName
	for i := range list.Items {
		var spec IssuerSpec
		if decode(&list.Items[i], "spec", &spec) == nil && spec.CA != nil && spec.CA.SecretName == name {
			out = append(out, types.NamespacedName{Namespace: list.Items[i].GetNamespace(), Name: list.Items[i].GetName()})
		}
	}
	return out
}

// Reconcile sets the issuer's Ready condition.
func (r *IssuerReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	iss := newObject(IssuerGVK.GroupVersion().WithKind(r.Kind))
	if err := r.Reader.Get(ctx, req.NamespacedName, iss); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	sg, err := loadIssuer(ctx, r.Reader, iss, r.ClusterResourceNamespace)
	var cond Condition
	switch {
	case err == nil && sg.ca != nil:
		cond = readyCondition(iss, true, "KeyPairVerified", "Signing CA verified")
	case err == nil:
		cond = readyCondition(iss, true, "IsReady", "")
	default:
		cond = readyCondition(iss, false, errReason(err), err.Error())
	}
	if err := patchStatus(ctx, r.Client, iss, map[string]any{"conditions": []Condition{cond}}); err != nil {
		return ctrl.Result{}, err
	}
	if cond.Status != "True" {
		ctrl.LoggerFrom(ctx).Info("issuer not ready", "reason", cond.Reason, "message", cond.Message)
		return ctrl.Result{RequeueAfter: time.Minute}, nil
	}
	return ctrl.Result{}, nil
}

// issuerError is why an issuer cannot sign, with cert-manager's reason.
type issuerError struct{ reason, msg string }

func (e *issuerError) Error() string { return e.msg }

func errReason(err error) string {
	if e, ok := err.(*issuerError); ok {
		return e.reason
	}
	return "Error"
}

// signer is a ready issuer: self-signed (ca == nil) or a CA key pair.
type signer struct {
	ca *keyPair
}

// loadIssuer checks iss can sign: it is selfSigned, or ca with a Secret
// (in its namespace; a ClusterIssuer's in clusterNS) holding a CA key
// pair.
func loadIssuer(ctx context.Context, c client.Reader, iss *unstructured.Unstructured, clusterNS string) (*signer, error) {
	var spec IssuerSpec
	if err := decode(iss, "spec", &spec); err != nil {
		return nil, &issuerError{"InvalidSpec", err.Error()}
	}
	switch {
	case spec.SelfSigned != nil:
		return &signer{}, nil
	case spec.CA != nil:
		ns := iss.GetNamespace()
		if iss.GetKind() == ClusterIssuerGVK.Kind {
			ns = clusterNS
		}
		s := &corev1.Secret{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: spec.CA.SecretName}, s); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, &issuerError{"ErrGetKeyPair", fmt.Sprintf("Error getting keypair for CA issuer: secret %q not found", spec.CA.SecretName)}
			}
			return nil, err
		}
		kp, err := parseKeyPair(s.Data[TLSCert], s.Data[TLSKey])
		if err == nil && !kp.cert.IsCA {
			err = fmt.Errorf("certificate is not a CA")
		}
		if err != nil {
			return nil, &issuerError{"ErrInvalidKeyPair", fmt.Sprintf("Error getting keypair for CA issuer: %v", err)}
		}
		return &signer{ca: kp}, nil
	}
	return nil, &issuerError{"UnsupportedIssuer", "eggo-certs serves only selfSigned and ca issuers"}
}
