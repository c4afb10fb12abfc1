package certs_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eggo-project/eggo/capi/internal/testenv"
)

func webhook(name, ns string) admissionv1.ValidatingWebhook {
	none := admissionv1.SideEffectClassNone
	return admissionv1.ValidatingWebhook{Name: name, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		ClientConfig: admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: ns, Name: "webhook", Path: ptr.To("/v")}}}
}

// conversionCRD is a two-version CRD converted by a webhook, annotated.
func conversionCRD(ns string, annotations map[string]string) *apiextv1.CustomResourceDefinition {
	schema := &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object"}}
	return &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.inject.eggo.io", Annotations: annotations},
		Spec: apiextv1.CustomResourceDefinitionSpec{Group: "inject.eggo.io", Scope: apiextv1.NamespaceScoped,
			Names: apiextv1.CustomResourceDefinitionNames{Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Singular: "widget"},
			Versions: []apiextv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schema},
				{Name: "v2", Served: true, Schema: schema}},
			Conversion: &apiextv1.CustomResourceConversion{Strategy: apiextv1.WebhookConverter,
				Webhook: &apiextv1.WebhookConversion{ConversionReviewVersions: []string{"v1"},
					ClientConfig: &apiextv1.WebhookClientConfig{Service: &apiextv1.ServiceReference{Namespace: ns, Name: "webhook", Path: ptr.To("/convert")}}}}},
	}
}

// CA injection from a Certificate (cert-manager.io/inject-ca-from, as
// Cluster API's webhook configurations and CRDs carry it): every caBundle
// of a ValidatingWebhookConfiguration and a CRD's conversion webhook gets
// the Secret's ca.crt, and the new one once the Secret is deleted and the
// Certificate reissued.
func testInjection(t *testing.T, e *env) {
	ns := e.API.Namespace(t, "inject")
	e.create(t, "Issuer", ns, "self", map[string]any{"selfSigned": map[string]any{}})
	e.create(t, "Certificate", ns, "serving", map[string]any{"dnsNames": []any{"webhook.inject.svc"},
		"secretName": "serving-cert", "issuerRef": map[string]any{"name": "self"}})
	ann := map[string]string{"cert-manager.io/inject-ca-from": ns + "/serving"}
	vwc := &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "inject", Annotations: ann},
		Webhooks: []admissionv1.ValidatingWebhook{webhook("a.inject.eggo.io", ns), webhook("b.inject.eggo.io", ns)}}
	crd := conversionCRD(ns, ann)
	other := &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "not-annotated"},
		Webhooks: []admissionv1.ValidatingWebhook{webhook("c.inject.eggo.io", ns)}}
	for _, o := range []client.Object{vwc, crd, other} {
		if err := e.c.Create(testenv.Ctx(t, 30*time.Second), o); err != nil {
			t.Fatal(err)
		}
	}
	e.ready(t, "Certificate", ns, "serving")
	first := e.secret(t, ns, "serving-cert").Data["ca.crt"]
	waitBundles(t, e, vwc, crd, first)
	if err := e.c.Delete(testenv.Ctx(t, 10*time.Second), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "serving-cert"}}); err != nil {
		t.Fatal(err)
	}
	var second []byte
	testenv.Eventually(t, 30*time.Second, "the Secret reissued", func() (bool, string) {
		s := &corev1.Secret{}
		err := e.c.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKey{Namespace: ns, Name: "serving-cert"}, s)
		second = s.Data["ca.crt"]
		return err == nil && len(second) > 0 && !bytes.Equal(second, first), fmt.Sprint(err)
	})
	waitBundles(t, e, vwc, crd, second)
	if err := e.c.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKeyFromObject(other), other); err != nil || len(other.Webhooks[0].ClientConfig.CABundle) != 0 {
		t.Errorf("a configuration without the annotation got a caBundle: %v", err)
	}
}

// waitBundles waits for every caBundle of vwc and crd to be ca.
func waitBundles(t *testing.T, e *env, vwc *admissionv1.ValidatingWebhookConfiguration, crd *apiextv1.CustomResourceDefinition, ca []byte) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, "the caBundles", func() (bool, string) {
		ctx := testenv.Ctx(t, 10*time.Second)
		if err := e.c.Get(ctx, client.ObjectKeyFromObject(vwc), vwc); err != nil {
			return false, err.Error()
		}
		if err := e.c.Get(ctx, client.ObjectKeyFromObject(crd), crd); err != nil {
			return false, err.Error()
		}
		for _, w := range vwc.Webhooks {
			if !bytes.Equal(w.ClientConfig.CABundle, ca) {
				return false, "webhook " + w.Name
			}
		}
		return bytes.Equal(crd.Spec.Conversion.Webhook.ClientConfig.CABundle, ca), "the CRD's conversion webhook"
	})
}

// Direct injection from a Secret (cert-manager.io/inject-ca-from-secret)
// happens only when the Secret allows it
// (cert-manager.io/allow-direct-injection: "true"), as in cert-manager.
func testDirectInjection(t *testing.T, e *env) {
	ns := e.API.Namespace(t, "inject-secret")
	ca := []byte("-----BEGIN CERTIFICATE-----\nZWdnbw==\n-----END CERTIFICATE-----\n")
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bundle"}, Data: map[string][]byte{"ca.crt": ca}}
	if err := e.c.Create(testenv.Ctx(t, 10*time.Second), s); err != nil {
		t.Fatal(err)
	}
	none := admissionv1.SideEffectClassNone
	mwc := &admissionv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "inject-secret",
		Annotations: map[string]string{"cert-manager.io/inject-ca-from-secret": ns + "/bundle"}},
		Webhooks: []admissionv1.MutatingWebhook{{Name: "m.inject.eggo.io", SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: ns, Name: "webhook"}}}}}
	if err := e.c.Create(testenv.Ctx(t, 10*time.Second), mwc); err != nil {
		t.Fatal(err)
	}
	bundle := func() []byte {
		if err := e.c.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKeyFromObject(mwc), mwc); err != nil {
			t.Fatal(err)
		}
		return mwc.Webhooks[0].ClientConfig.CABundle
	}
	testenv.Consistently(t, 3*time.Second, "not injected without allow-direct-injection", func() (bool, string) {
		return len(bundle()) == 0, "injected"
	})
	s.Annotations = map[string]string{"cert-manager.io/allow-direct-injection": "true"}
	if err := e.c.Update(testenv.Ctx(t, 10*time.Second), s); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "injected from the Secret", func() (bool, string) {
		return bytes.Equal(bundle(), ca), string(bundle())
	})
}
