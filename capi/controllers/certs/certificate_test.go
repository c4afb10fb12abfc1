package certs_test

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "sigs.k8s.io/cluster-api/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eggo-project/eggo/capi/internal/testenv"
)

// clusterctl's own check (cmd/clusterctl/client/cluster/assets/
// cert-manager-test-resources.yaml, applied as waitForAPIReady applies
// it): the Issuer and the Certificate become Ready, the Secret holds a
// valid key pair for example.com, self-signed (ca.crt is tls.crt).
func testClusterctlResources(t *testing.T, e *env) {
	data, err := os.ReadFile(filepath.Join(testenv.CAPIModuleDir(t), "cmd", "clusterctl", "client", "cluster", "assets",
		"cert-manager-test-resources.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := utilyaml.ToUnstructured(data)
	if err != nil || len(objs) != 3 {
		t.Fatalf("%d objects, %v", len(objs), err)
	}
	for i := range objs {
		if err := e.c.Create(testenv.Ctx(t, 30*time.Second), &objs[i]); err != nil {
			t.Fatal(err)
		}
	}
	e.ready(t, "Issuer", "cert-manager-test", "test-selfsigned")
	crt := e.ready(t, "Certificate", "cert-manager-test", "selfsigned-cert")
	s := e.secret(t, "cert-manager-test", "selfsigned-cert-tls")
	c := checkSecret(t, s, "selfsigned-cert", "example.com")
	if !bytes.Equal(s.Data["ca.crt"], s.Data["tls.crt"]) {
		t.Error("a self-signed certificate's ca.crt is not its tls.crt")
	}
	if got := c.NotAfter.Sub(c.NotBefore); got != 90*24*time.Hour {
		t.Errorf("duration %s, want cert-manager's default 90 days", got)
	}
	checkStatusTimes(t, crt, c, 30*24*time.Hour)
	// clusterctl then deletes them, the Namespace last.
	for i := len(objs) - 1; i >= 0; i-- {
		if err := e.c.Delete(testenv.Ctx(t, 30*time.Second), &objs[i]); err != nil {
			t.Fatal(err)
		}
	}
}

// checkStatusTimes: status.notBefore, notAfter are the certificate's,
// renewalTime is renewBefore before its end.
func checkStatusTimes(t *testing.T, crt *unstructured.Unstructured, c *x509.Certificate, renewBefore time.Duration) {
	t.Helper()
	st := crt.Object["status"].(map[string]any)
	want := map[string]time.Time{"notBefore": c.NotBefore, "notAfter": c.NotAfter, "renewalTime": c.NotAfter.Add(-renewBefore)}
	for k, w := range want {
		if st[k] != w.UTC().Format(time.RFC3339) {
			t.Errorf("status.%s %v, want %s", k, st[k], w.UTC().Format(time.RFC3339))
		}
	}
}

// Cluster API's core components' Issuer and Certificate
// (core/config/certmanager/certificate.yaml, named as kustomize names them
// into capi-system): the serving certificate for the webhook Service,
// with both dnsNames and the subject's organization.
func testCAPIServingCert(t *testing.T, e *env) {
	data, err := os.ReadFile(filepath.Join(testenv.CAPIModuleDir(t), "core", "config", "certmanager", "certificate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer("namespace: system", "namespace: capi-system",
		"name: selfsigned-issuer", "name: capi-selfsigned-issuer", "name: serving-cert", "name: capi-serving-cert",
		"SERVICE_NAMESPACE", "capi-system", "SERVICE_NAME", "capi-webhook-service").Replace(string(data))
	objs, err := utilyaml.ToUnstructured([]byte(text))
	if err != nil || len(objs) != 2 {
		t.Fatalf("%d objects, %v", len(objs), err)
	}
	e.API.Namespace(t, "capi-system")
	for i := range objs {
		if err := e.c.Create(testenv.Ctx(t, 30*time.Second), &objs[i]); err != nil {
			t.Fatal(err)
		}
	}
	e.ready(t, "Issuer", "capi-system", "capi-selfsigned-issuer")
	e.ready(t, "Certificate", "capi-system", "capi-serving-cert")
	s := e.secret(t, "capi-system", "capi-webhook-service-cert")
	for _, name := range []string{"capi-webhook-service.capi-system.svc", "capi-webhook-service.capi-system.svc.cluster.local"} {
		checkSecret(t, s, "capi-serving-cert", name)
	}
	c := parseCerts(t, s.Data["tls.crt"])[0]
	if len(c.Subject.Organization) != 1 || c.Subject.Organization[0] != "k8s-sig-cluster-lifecycle" {
		t.Errorf("subject %v", c.Subject)
	}
	if s.Annotations["cert-manager.io/alt-names"] != "capi-webhook-service.capi-system.svc,capi-webhook-service.capi-system.svc.cluster.local" ||
		s.Annotations["cert-manager.io/issuer-name"] != "capi-selfsigned-issuer" || s.Annotations["cert-manager.io/issuer-kind"] != "Issuer" {
		t.Errorf("annotations %v", s.Annotations)
	}
}

// A CA chain: a self-signed CA Certificate (isCA), an Issuer of type ca
// with its Secret, and a leaf (RSA) it signs; the leaf verifies against
// the CA with x509, its ca.crt is the CA's certificate.
func testCAChain(t *testing.T, e *env) {
	ns := e.API.Namespace(t, "ca-chain")
	e.create(t, "Issuer", ns, "bootstrap", map[string]any{"selfSigned": map[string]any{}})
	e.create(t, "Certificate", ns, "root", map[string]any{"isCA": true, "commonName": "eggo test CA",
		"secretName": "root-ca", "issuerRef": map[string]any{"name": "bootstrap"}})
	e.create(t, "Issuer", ns, "ca", map[string]any{"ca": map[string]any{"secretName": "root-ca"}})
	e.create(t, "Certificate", ns, "leaf", map[string]any{"dnsNames": []any{"leaf.ca-chain.svc"}, "commonName": "leaf",
		"secretName": "leaf-tls", "duration": "24h", "privateKey": map[string]any{"algorithm": "RSA"},
		"usages": []any{"server auth"}, "issuerRef": map[string]any{"name": "ca", "kind": "Issuer"}})
	e.ready(t, "Issuer", ns, "ca")
	e.ready(t, "Certificate", ns, "leaf")
	root := e.secret(t, ns, "root-ca")
	ca := checkSecret(t, root, "root", "")
	if !ca.IsCA || ca.Subject.CommonName != "eggo test CA" {
		t.Errorf("the CA: isCA %v, subject %v", ca.IsCA, ca.Subject)
	}
	leafSecret := e.secret(t, ns, "leaf-tls")
	if !bytes.Equal(bytes.TrimSpace(leafSecret.Data["ca.crt"]), bytes.TrimSpace(root.Data["tls.crt"])) {
		t.Error("the leaf's ca.crt is not the CA's certificate")
	}
	leaf := checkSecret(t, leafSecret, "leaf", "leaf.ca-chain.svc")
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "leaf.ca-chain.svc"}); err != nil {
		t.Errorf("the leaf does not verify against the CA: %v", err)
	}
	if _, ok := leaf.PublicKey.(*rsa.PublicKey); !ok || leaf.IsCA || leaf.Issuer.CommonName != "eggo test CA" {
		t.Errorf("the leaf: key %T, isCA %v, issuer %v", leaf.PublicKey, leaf.IsCA, leaf.Issuer)
	}
	if got := leaf.NotAfter.Sub(leaf.NotBefore); got != 24*time.Hour {
		t.Errorf("the leaf's duration %s, want 24h", got)
	}
}

// A ClusterIssuer of type ca reads its Secret from the cluster resource
// namespace; one of an unserved type is not Ready.
func testClusterIssuer(t *testing.T, e *env) {
	e.create(t, "ClusterIssuer", "", "bootstrap", map[string]any{"selfSigned": map[string]any{}})
	e.create(t, "Certificate", "cert-manager", "cluster-ca", map[string]any{"isCA": true, "commonName": "cluster CA",
		"secretName": "cluster-ca", "issuerRef": map[string]any{"name": "bootstrap", "kind": "ClusterIssuer"}})
	e.create(t, "ClusterIssuer", "", "cluster-ca", map[string]any{"ca": map[string]any{"secretName": "cluster-ca"}})
	ns := e.API.Namespace(t, "cluster-issuer")
	e.create(t, "Certificate", ns, "leaf", map[string]any{"dnsNames": []any{"leaf.example"}, "secretName": "leaf",
		"issuerRef": map[string]any{"name": "cluster-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"}})
	e.ready(t, "ClusterIssuer", "", "cluster-ca")
	e.ready(t, "Certificate", ns, "leaf")
	checkSecret(t, e.secret(t, ns, "leaf"), "leaf", "leaf.example")
	e.create(t, "ClusterIssuer", "", "acme", map[string]any{"acme": map[string]any{
		"server": "https://acme.invalid/directory", "privateKeySecretRef": map[string]any{"name": "acme"}}})
	testenv.Eventually(t, 30*time.Second, "the acme ClusterIssuer not Ready", func() (bool, string) {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("cert-manager.io/v1")
		u.SetKind("ClusterIssuer")
		err := e.c.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKey{Name: "acme"}, u)
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		return err == nil && len(conds) == 1 && conds[0].(map[string]any)["status"] == "False" &&
			conds[0].(map[string]any)["reason"] == "UnsupportedIssuer", fmt.Sprint(err, conds)
	})
}

// Renewal: a Certificate of 1h renewed 59m50s before its end is reissued
// (a new serial, a new key, status.revision up) about 10 s after issuance.
func testRenewal(t *testing.T, e *env) {
	ns := e.API.Namespace(t, "renewal")
	e.create(t, "Issuer", ns, "self", map[string]any{"selfSigned": map[string]any{}})
	e.create(t, "Certificate", ns, "short", map[string]any{"dnsNames": []any{"short.example"}, "secretName": "short",
		"duration": "1h", "renewBefore": "59m50s", "issuerRef": map[string]any{"name": "self"}})
	e.ready(t, "Certificate", ns, "short")
	first := checkSecret(t, e.secret(t, ns, "short"), "short", "short.example")
	var second *x509.Certificate
	testenv.Eventually(t, 25*time.Second, "a renewal", func() (bool, string) {
		second = parseCerts(t, e.secret(t, ns, "short").Data["tls.crt"])[0]
		return second.SerialNumber.Cmp(first.SerialNumber) != 0, "serial " + first.SerialNumber.String()
	})
	if second.NotBefore.Before(first.NotBefore.Add(9 * time.Second)) {
		t.Errorf("renewed at %s, issued at %s: before renewBefore", second.NotBefore, first.NotBefore)
	}
	s := e.secret(t, ns, "short")
	checkSecret(t, s, "short", "short.example")
	testenv.Eventually(t, 10*time.Second, "status of the renewal", func() (bool, string) {
		crt := e.ready(t, "Certificate", ns, "short")
		rev, _, _ := unstructured.NestedInt64(crt.Object, "status", "revision")
		return rev >= 2 && crt.Object["status"].(map[string]any)["notBefore"] == second.NotBefore.UTC().Format(time.RFC3339),
			fmt.Sprint(crt.Object["status"])
	})
}

// A spec change (dnsNames) reissues the certificate.
func testSpecChange(t *testing.T, e *env) {
	ns := e.API.Namespace(t, "spec-change")
	e.create(t, "Issuer", ns, "self", map[string]any{"selfSigned": map[string]any{}})
	crt := e.create(t, "Certificate", ns, "c", map[string]any{"dnsNames": []any{"a.example"}, "secretName": "c",
		"issuerRef": map[string]any{"name": "self"}})
	e.ready(t, "Certificate", ns, "c")
	checkSecret(t, e.secret(t, ns, "c"), "c", "a.example")
	patch := []byte(`{"spec":{"dnsNames":["b.example"]}}`)
	if err := e.c.Patch(testenv.Ctx(t, 10*time.Second), crt, client.RawPatch("application/merge-patch+json", patch)); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "reissued for b.example", func() (bool, string) {
		c := parseCerts(t, e.secret(t, ns, "c").Data["tls.crt"])[0]
		return len(c.DNSNames) == 1 && c.DNSNames[0] == "b.example", fmt.Sprint(c.DNSNames)
	})
}
