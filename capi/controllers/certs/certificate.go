package certs

import (
	"context"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// CertificateReconciler issues Certificates into their Secrets and
// renews them.
type CertificateReconciler struct {
	Client client.Client
	Reader client.Reader // cached: Certificates, issuers
	// APIReader reads the Secret a Certificate is issued into, so a
	// reconcile never reissues because the cache lags its own write.
	APIReader                client.Reader
	ClusterResourceNamespace string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// SetupWithManager registers the reconciler: Certificates, their Secrets,
// their issuers and the Secrets of ca issuers wake it.
func (r *CertificateReconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	if r.Now == nil {
		r.Now = time.Now
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(newObject(CertificateGVK)).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.secretToCertificates)).
		Watches(newObject(IssuerGVK), handler.EnqueueRequestsFromMapFunc(r.issuerToCertificates)).
		Watches(newObject(ClusterIssuerGVK), handler.EnqueueRequestsFromMapFunc(r.issuerToCertificates)).
		WithOptions(opts).
		Named("certs-certificate").
		Complete(r)
}

// secretToCertificates: the Certificates issued into the Secret, and
// those whose ca issuer's Secret it is.
func (r *CertificateReconciler) secretToCertificates(ctx context.Context, o client.Object) []reconcile.Request {
	reqs := r.certificates(ctx, o.GetNamespace(), func(s *CertificateSpec) bool { return s.SecretName == o.GetName() })
	for _, kind := range []string{IssuerGVK.Kind, ClusterIssuerGVK.Kind} {
		for _, iss := range caIssuersOf(ctx, r.Reader, kind, r.ClusterResourceNamespace, o.GetNamespace(), o.GetName()) {
			reqs = append(reqs, r.certificates(ctx, iss.Namespace, issuedBy(kind, iss.Name))...)
		}
	}
	return reqs
}

// issuerToCertificates: the Certificates an Issuer or ClusterIssuer signs.
func (r *CertificateReconciler) issuerToCertificates(ctx context.Context, o client.Object) []reconcile.Request {
	kind := IssuerGVK.Kind
	if o.GetNamespace() == "" {
		kind = ClusterIssuerGVK.Kind
	}
	return r.certificates(ctx, o.GetNamespace(), issuedBy(kind, o.GetName()))
}

func issuedBy(kind, name string) func(*CertificateSpec) bool {
	return func(s *CertificateSpec) bool { return s.IssuerRef.Name == name && issuerKind(s) == kind }
}

// certificates are the Certificates in ns ("": all) whose spec matches.
func (r *CertificateReconciler) certificates(ctx context.Context, ns string, match func(*CertificateSpec) bool) []reconcile.Request {
	list := newList(CertificateGVK)
	if err := r.Reader.List(ctx, list, client.InNamespace(ns)); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		var s CertificateSpec
		if decode(&list.Items[i], "spec", &s) == nil && match(&s) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
		}
	}
	return reqs
}

func issuerKind(s *CertificateSpec) string {
	if s.IssuerRef.Kind == "" {
		return IssuerGVK.Kind
	}
	return s.IssuerRef.Kind
}

// Reconcile issues the Certificate when its Secret does not hold what it
// asks, and reports it Ready until its renewal time, when it reissues.
func (r *CertificateReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	crt := newObject(CertificateGVK)
	if err := r.Reader.Get(ctx, req.NamespacedName, crt); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	spec, sg, err := r.load(ctx, crt)
	if err != nil {
		log.Info("certificate not issued", "reason", errReason(err), "message", err.Error())
		return ctrl.Result{}, patchStatus(ctx, r.Client, crt, map[string]any{
			"conditions": []Condition{readyCondition(crt, false, errReason(err), err.Error())}})
	}
	secret := &corev1.Secret{}
	if err := r.APIReader.Get(ctx, types.NamespacedName{Namespace: crt.GetNamespace(), Name: spec.SecretName}, secret); err != nil {
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, err
		}
		secret = nil
	}
	now := r.Now()
	kp, why := current(spec, sg, secret, now)
	var revision int64
	if why != "" {
		log.Info("issuing", "secret", spec.SecretName, "why", why)
		out, err := sign(spec, sg, now)
		if err != nil {
			return ctrl.Result{}, fmt.Errorf("issuing: %w", err)
		}
		if err := r.writeSecret(ctx, crt, spec, secret, out); err != nil {
			return ctrl.Result{}, fmt.Errorf("writing Secret %s: %w", spec.SecretName, err)
		}
		kp = &keyPair{cert: out.cert}
		if revision, err = r.revision(ctx, crt); err != nil {
			return ctrl.Result{}, err
		}
	}
	_, renewBefore, _ := spec.lifetime()
	renewal := kp.cert.NotAfter.Add(-renewBefore)
	status := map[string]any{
		"notBefore":   kp.cert.NotBefore.UTC().Format(time.RFC3339),
		"notAfter":    kp.cert.NotAfter.UTC().Format(time.RFC3339),
		"renewalTime": renewal.UTC().Format(time.RFC3339),
		"conditions": []Condition{readyCondition(crt, true, "Ready",
			"Certificate is up to date and has not expired")},
	}
	if revision > 0 { // only on issuance: a lagging cache must not set it back
		status["revision"] = revision
	}
	if err := patchStatus(ctx, r.Client, crt, status); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: max(renewal.Sub(r.Now()), 0) + 100*time.Millisecond}, nil
}

// revision is the Certificate's next status.revision, read from the
// server (the cache may not hold the last issuance yet).
func (r *CertificateReconciler) revision(ctx context.Context, crt *unstructured.Unstructured) (int64, error) {
	fresh := newObject(CertificateGVK)
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(crt), fresh); err != nil {
		return 0, err
	}
	rev, _, _ := unstructured.NestedInt64(fresh.Object, "status", "revision")
	return rev + 1, nil
}

// load reads the Certificate's spec and its issuer, ready to sign.
func (r *CertificateReconciler) load(ctx context.Context, crt *unstructured.Unstructured) (*CertificateSpec, *signer, error) {
	spec := &CertificateSpec{}
	if err := decode(crt, "spec", spec); err != nil {
		return nil, nil, &issuerError{"InvalidSpec", err.Error()}
	}
	if spec.SecretName == "" || spec.IssuerRef.Name == "" {
		return nil, nil, &issuerError{"InvalidSpec", "spec.secretName and spec.issuerRef.name are required"}
	}
	if _, _, err := spec.lifetime(); err != nil {
		return nil, nil, &issuerError{"InvalidSpec", err.Error()}
	}
	if _, _, err := spec.keyAlgorithm(); err != nil {
		return nil, nil, &issuerError{"InvalidSpec", err.Error()}
	}
	kind := issuerKind(spec)
	if (spec.IssuerRef.Group != "" && spec.IssuerRef.Group != Group) || (kind != IssuerGVK.Kind && kind != ClusterIssuerGVK.Kind) {
		return nil, nil, &issuerError{"UnsupportedIssuer", fmt.Sprintf("issuer %s.%s is not served by eggo-certs", kind, spec.IssuerRef.Group)}
	}
	iss := newObject(IssuerGVK.GroupVersion().WithKind(kind))
	key := types.NamespacedName{Namespace: crt.GetNamespace(), Name: spec.IssuerRef.Name}
	if kind == ClusterIssuerGVK.Kind {
		key.Namespace = ""
	}
	if err := r.Reader.Get(ctx, key, iss); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil, &issuerError{"IssuerNotFound", fmt.Sprintf("%s %q not found", kind, spec.IssuerRef.Name)}
		}
		return nil, nil, err
	}
	sg, err := loadIssuer(ctx, r.Reader, iss, r.ClusterResourceNamespace)
	if err != nil {
		return nil, nil, &issuerError{"IssuerNotReady", fmt.Sprintf("%s %q: %v", kind, spec.IssuerRef.Name, err)}
	}
	return spec, sg, nil
}

// current is the Secret's key pair when it is the certificate spec asks
// from sg and not yet due for renewal; otherwise why it must be issued.
func current(spec *CertificateSpec, sg *signer, secret *corev1.Secret, now time.Time) (*keyPair, string) {
	if secret == nil {
		return nil, "the Secret does not exist"
	}
	kp, err := parseKeyPair(secret.Data[TLSCert], secret.Data[TLSKey])
	if err != nil {
		return nil, "the Secret holds no valid key pair: " + err.Error()
	}
	a := secret.Annotations
	if a[IssuerNameKey] != spec.IssuerRef.Name || a[IssuerKindKey] != issuerKind(spec) || a[IssuerGroupKey] != spec.IssuerRef.Group {
		return nil, "the issuer changed"
	}
	if why := mismatch(spec, sg, kp); why != "" {
		return nil, why
	}
	if sg.ca != nil && !pemEqual(secret.Data[CACert], certPEM(sg.ca.chain[len(sg.ca.chain)-1])) {
		return nil, "ca.crt is not the issuer's CA"
	}
	_, renewBefore, _ := spec.lifetime()
	if !now.Before(kp.cert.NotAfter.Add(-renewBefore)) {
		return nil, "due for renewal"
	}
	return kp, ""
}

// writeSecret writes the issued key pair into the Secret (created, or
// updated keeping its other keys, labels and annotations; one of another
// type is replaced), annotated as cert-manager annotates it.
func (r *CertificateReconciler) writeSecret(ctx context.Context, crt *unstructured.Unstructured, spec *CertificateSpec, old *corev1.Secret, out *issued) error {
	if old != nil && old.Type != corev1.SecretTypeTLS {
		if err := r.Client.Delete(ctx, old, client.Preconditions{UID: &old.UID}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		old = nil
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: crt.GetNamespace(), Name: spec.SecretName}, Type: corev1.SecretTypeTLS}
	if old != nil {
		s = old.DeepCopy()
	}
	if s.Data == nil {
		s.Data = map[string][]byte{}
	}
	s.Data[TLSCert], s.Data[TLSKey], s.Data[CACert] = out.certPEM, out.keyPEM, out.caPEM
	s.Labels, s.Annotations = maps.Clone(s.Labels), maps.Clone(s.Annotations)
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	if t := spec.SecretTemplate; t != nil {
		maps.Copy(s.Labels, t.Labels)
		maps.Copy(s.Annotations, t.Annotations)
	}
	s.Labels[PartOfLabel] = "true"
	var ips, uris []string
	for _, ip := range out.cert.IPAddresses {
		ips = append(ips, ip.String())
	}
	for _, u := range out.cert.URIs {
		uris = append(uris, u.String())
	}
	maps.Copy(s.Annotations, map[string]string{
		CertificateNameKey: crt.GetName(), IssuerNameKey: spec.IssuerRef.Name,
		IssuerKindKey: issuerKind(spec), IssuerGroupKey: spec.IssuerRef.Group,
		CommonNameKey: spec.CommonName, AltNamesKey: joinNames(out.cert.DNSNames),
		IPSANsKey: joinNames(ips), URISANsKey: joinNames(uris), EmailSANsKey: joinNames(out.cert.EmailAddresses),
	})
	if old == nil {
		return r.Client.Create(ctx, s)
	}
	return r.Client.Update(ctx, s)
}
