package certs

import (
	"context"
	"encoding/base64"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Injectable is a kind whose caBundles eggo-certs fills, as cert-manager's
// cainjector does.
type Injectable struct {
	GVK schema.GroupVersionKind
	// set sets every caBundle of obj to ca (base64), saying whether one changed.
	set func(obj *unstructured.Unstructured, ca string) bool
}

var injectables = []Injectable{
	{schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"}, setWebhooks},
	{schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingWebhookConfiguration"}, setWebhooks},
	{schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}, setConversion},
	{schema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"}, setAPIService},
}

// setWebhooks sets webhooks[].clientConfig.caBundle.
func setWebhooks(obj *unstructured.Unstructured, ca string) bool {
	hooks, _, _ := unstructured.NestedSlice(obj.Object, "webhooks")
	changed := false
	for _, h := range hooks {
		hook, ok := h.(map[string]any)
		if !ok {
			continue
		}
		if cur, _, _ := unstructured.NestedString(hook, "clientConfig", "caBundle"); cur != ca {
			_ = unstructured.SetNestedField(hook, ca, "clientConfig", "caBundle")
			changed = true
		}
	}
	if changed {
		_ = unstructured.SetNestedSlice(obj.Object, hooks, "webhooks")
	}
	return changed
}

// setConversion sets a CRD's conversion webhook's caBundle (only when its
// conversion strategy is Webhook).
func setConversion(obj *unstructured.Unstructured, ca string) bool {
	if s, _, _ := unstructured.NestedString(obj.Object, "spec", "conversion", "strategy"); s != "Webhook" {
		return false
	}
	path := []string{"spec", "conversion", "webhook", "clientConfig", "caBundle"}
	if cur, _, _ := unstructured.NestedString(obj.Object, path...); cur == ca {
		return false
	}
	_ = unstructured.SetNestedField(obj.Object, ca, path...)
	return true
}

// setAPIService sets an APIService's spec.caBundle.
func setAPIService(obj *unstructured.Unstructured, ca string) bool {
	if cur, _, _ := unstructured.NestedString(obj.Object, "spec", "caBundle"); cur == ca {
		return false
	}
	_ = unstructured.SetNestedField(obj.Object, ca, "spec", "caBundle")
	return true
}

// InjectorReconciler injects CA bundles into Target's objects annotated
// cert-manager.io/inject-ca-from or cert-manager.io/inject-ca-from-secret.
type InjectorReconciler struct {
	Client    client.Client
	Reader    client.Reader // cached
	APIReader client.Reader
	Target    Injectable
}

func annotated(o client.Object) bool {
	a := o.GetAnnotations()
	return a[InjectFromAnnotation] != "" || a[InjectSecretAnnotation] != ""
}

// SetupWithManager registers the reconciler: the annotated objects, and
// the Secrets and Certificates they name.
func (r *InjectorReconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(newObject(r.Target.GVK), builder.WithPredicates(predicate.NewPredicateFuncs(annotated))).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.secretToTargets)).
		Watches(newObject(CertificateGVK), handler.EnqueueRequestsFromMapFunc(r.certificateToTargets)).
		WithOptions(opts).
		Named("certs-inject-" + strings.ToLower(r.Target.GVK.Kind)).
		Complete(r)
}

// targets are the annotated objects for which match holds.
func (r *InjectorReconciler) targets(ctx context.Context, match func(from, fromSecret string) bool) []reconcile.Request {
	list := newList(r.Target.GVK)
	if err := r.Reader.List(ctx, list); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		a := list.Items[i].GetAnnotations()
		if annotated(&list.Items[i]) && match(a[InjectFromAnnotation], a[InjectSecretAnnotation]) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
		}
	}
	return reqs
}

// secretToTargets: the objects injected from the Secret, directly or
// through the Certificate it was issued for.
func (r *InjectorReconciler) secretToTargets(ctx context.Context, o client.Object) []reconcile.Request {
	ref := o.GetNamespace() + "/" + o.GetName()
	crt := ""
	if name := o.GetAnnotations()[CertificateNameKey]; name != "" {
		crt = o.GetNamespace() + "/" + name
	}
	return r.targets(ctx, func(from, fromSecret string) bool { return fromSecret == ref || (crt != "" && from == crt) })
}

// certificateToTargets: the objects injected from the Certificate.
func (r *InjectorReconciler) certificateToTargets(ctx context.Context, o client.Object) []reconcile.Request {
	ref := o.GetNamespace() + "/" + o.GetName()
	return r.targets(ctx, func(from, _ string) bool { return from == ref })
}

// Reconcile sets the object's caBundles to the CA its annotation names.
func (r *InjectorReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	obj := newObject(r.Target.GVK)
	if err := r.Reader.Get(ctx, req.NamespacedName, obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	ca, why, err := r.caFor(ctx, obj)
	if err != nil {
		return ctrl.Result{}, err
	}
	if why != "" {
		log.Info("no CA to inject", "why", why)
		return ctrl.Result{}, nil
	}
	if !r.Target.set(obj, base64.StdEncoding.EncodeToString(ca)) {
		return ctrl.Result{}, nil
	}
	log.Info("injecting the CA bundle")
	return ctrl.Result{}, r.Client.Update(ctx, obj)
}

// caFor is the ca.crt obj's annotation names, or why there is none (the
// Certificate, its Secret, or the data is missing; a Secret named
// directly does not allow injection).
func (r *InjectorReconciler) caFor(ctx context.Context, obj *unstructured.Unstructured) ([]byte, string, error) {
	a := obj.GetAnnotations()
	var secretKey types.NamespacedName
	certName := ""
	if from := a[InjectFromAnnotation]; from != "" {
		key, err := splitRef(from)
		if err != nil {
			return nil, InjectFromAnnotation + ": " + err.Error(), nil
		}
		crt := newObject(CertificateGVK)
		if err := r.Reader.Get(ctx, key, crt); err != nil {
			return nil, "Certificate " + from + ": " + err.Error(), client.IgnoreNotFound(err)
		}
		var spec CertificateSpec
		if err := decode(crt, "spec", &spec); err != nil || spec.SecretName == "" {
			return nil, "Certificate " + from + " names no Secret", nil
		}
		secretKey, certName = types.NamespacedName{Namespace: key.Namespace, Name: spec.SecretName}, key.Name
	} else {
		key, err := splitRef(a[InjectSecretAnnotation])
		if err != nil {
			return nil, InjectSecretAnnotation + ": " + err.Error(), nil
		}
		secretKey = key
	}
	s := &corev1.Secret{}
	if err := r.Reader.Get(ctx, secretKey, s); err != nil {
		return nil, "Secret " + secretKey.String() + ": " + err.Error(), client.IgnoreNotFound(err)
	}
	switch {
	case certName != "" && s.Annotations[CertificateNameKey] != certName:
		return nil, "Secret " + secretKey.String() + " was not issued for Certificate " + certName, nil
	case certName == "" && s.Annotations[AllowDirectInjection] != "true":
		return nil, "Secret " + secretKey.String() + " does not allow direct injection (" + AllowDirectInjection + ")", nil
	case len(s.Data[CACert]) == 0:
		return nil, "Secret " + secretKey.String() + " holds no " + CACert, nil
	}
	return s.Data[CACert], "", nil
}
