package certs_test

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/yaml"

	"github.com/eggo-project/eggo/capi/controllers/certs"
	"github.com/eggo-project/eggo/capi/internal/testenv"
)

// env is a kube-apiserver with cert-manager's CRDs (config/certmanager/crds)
// and eggo-certs' reconcilers running in the test process as a user bound
// to the generated ClusterRole config/certmanager/role.yaml.
type env struct {
	*testenv.Env
	c client.Client // the admin's, made once cert-manager's CRDs are served
}

// TestCerts runs every case against one server and one manager.
func TestCerts(t *testing.T) {
	e := startEnv(t)
	t.Run("ClusterctlTestResources", func(t *testing.T) { testClusterctlResources(t, e) })
	t.Run("CAPIServingCert", func(t *testing.T) { testCAPIServingCert(t, e) })
	t.Run("CAChain", func(t *testing.T) { testCAChain(t, e) })
	t.Run("ClusterIssuer", func(t *testing.T) { testClusterIssuer(t, e) })
	t.Run("Injection", func(t *testing.T) { testInjection(t, e) })
	t.Run("DirectInjection", func(t *testing.T) { testDirectInjection(t, e) })
	t.Run("Renewal", func(t *testing.T) { testRenewal(t, e) })
	t.Run("SpecChange", func(t *testing.T) { testSpecChange(t, e) })
}

func startEnv(t *testing.T) *env {
	e := &env{Env: testenv.Start(t)}
	ctx := testenv.Ctx(t, 2*time.Minute)
	crds := testenv.ReadCRDs(t, filepath.Join(e.ModuleDir, "config", "certmanager", "crds"))
	if len(crds) != 4 {
		t.Fatalf("%d cert-manager CRDs, want certificates, certificaterequests, issuers, clusterissuers", len(crds))
	}
	for _, crd := range crds {
		if err := e.Client.Create(ctx, crd); err != nil {
			t.Fatalf("installing %s: %v", crd.Name, err)
		}
	}
	for _, crd := range crds {
		testenv.Eventually(t, time.Minute, "CRD "+crd.Name+" established", func() (bool, string) {
			got := &apiextv1.CustomResourceDefinition{}
			err := e.Client.Get(ctx, client.ObjectKey{Name: crd.Name}, got)
			for _, c := range got.Status.Conditions {
				if c.Type == apiextv1.Established && c.Status == apiextv1.ConditionTrue {
					return true, ""
				}
			}
			return false, fmt.Sprint(err, got.Status.Conditions)
		})
	}
	var err error
	if e.c, err = client.New(e.API.Config, client.Options{Scheme: e.Scheme}); err != nil {
		t.Fatal(err)
	}
	e.API.Namespace(t, "cert-manager")
	cfg, err := clientcmd.BuildConfigFromFlags("", e.roleKubeconfig(t, "eggo-certs"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	e.StartManager(t, "certs", cfg, func(mgr manager.Manager) error {
		return certs.Setup(mgr, certs.Options{ClusterResourceNamespace: "cert-manager", Controller: testenv.ControllerOptions()})
	})
	return e
}

// roleKubeconfig binds user to the generated role and returns its
// kubeconfig (testenv.RoleKubeconfig reads config/rbac/<provider>/ only).
func (e *env) roleKubeconfig(t *testing.T, user string) string {
	ctx := testenv.Ctx(t, 30*time.Second)
	data, err := os.ReadFile(filepath.Join(e.ModuleDir, "config", "certmanager", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		t.Fatal(err)
	}
	if err := e.Client.Create(ctx, role); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}}
	if err := e.Client.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
	return e.API.UserKubeconfig(t, user)
}

// create creates a cert-manager.io/v1 object of kind from its spec.
func (e *env) create(t *testing.T, kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cert-manager.io/v1", "kind": kind,
		"metadata": map[string]any{"name": name}, "spec": spec}}
	if ns != "" {
		u.SetNamespace(ns)
	}
	if err := e.c.Create(testenv.Ctx(t, 30*time.Second), u); err != nil {
		t.Fatalf("creating %s %s: %v", kind, name, err)
	}
	return u
}

// ready waits for the object's Ready=True and returns it.
func (e *env) ready(t *testing.T, kind, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("cert-manager.io/v1")
	u.SetKind(kind)
	testenv.Eventually(t, 30*time.Second, kind+" "+name+" Ready", func() (bool, string) {
		err := e.c.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKey{Namespace: ns, Name: name}, u)
		return err == nil && certs.IsReady(u), fmt.Sprint(err, u.Object["status"])
	})
	return u
}

// secret is the Secret ns/name, once it exists.
func (e *env) secret(t *testing.T, ns, name string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{}
	testenv.Eventually(t, 30*time.Second, "Secret "+name, func() (bool, string) {
		err := e.c.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKey{Namespace: ns, Name: name}, s)
		return err == nil, fmt.Sprint(err)
	})
	return s
}

// checkSecret checks the Secret is a kubernetes.io/tls one whose tls.crt
// verifies against its ca.crt for dnsName (if any) and whose tls.key
// matches, annotated for its Certificate; it returns the certificate.
func checkSecret(t *testing.T, s *corev1.Secret, certName, dnsName string) *x509.Certificate {
	t.Helper()
	if s.Type != corev1.SecretTypeTLS {
		t.Errorf("Secret %s: type %s", s.Name, s.Type)
	}
	if s.Annotations[certs.CertificateNameKey] != certName || s.Labels[certs.PartOfLabel] != "true" {
		t.Errorf("Secret %s: annotations %v labels %v", s.Name, s.Annotations, s.Labels)
	}
	chain := parseCerts(t, s.Data["tls.crt"])
	roots, inter := x509.NewCertPool(), x509.NewCertPool()
	for _, c := range parseCerts(t, s.Data["ca.crt"]) {
		roots.AddCert(c)
	}
	for _, c := range chain[1:] {
		inter.AddCert(c)
	}
	if _, err := chain[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, DNSName: dnsName,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
		t.Errorf("Secret %s: tls.crt does not verify against ca.crt: %v", s.Name, err)
	}
	b, _ := pem.Decode(s.Data["tls.key"])
	if b == nil {
		t.Fatalf("Secret %s: tls.key is not PEM", s.Name)
	}
	key, err := parseKey(b)
	if err != nil {
		t.Fatalf("Secret %s: tls.key: %v", s.Name, err)
	}
	if pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool }); !ok || !pub.Equal(chain[0].PublicKey) {
		t.Errorf("Secret %s: tls.key does not match tls.crt", s.Name)
	}
	return chain[0]
}

func parseKey(b *pem.Block) (crypto.Signer, error) {
	var k any
	var err error
	switch b.Type {
	case "EC PRIVATE KEY":
		k, err = x509.ParseECPrivateKey(b.Bytes)
	case "RSA PRIVATE KEY":
		k, err = x509.ParsePKCS1PrivateKey(b.Bytes)
	default:
		k, err = x509.ParsePKCS8PrivateKey(b.Bytes)
	}
	if err != nil {
		return nil, err
	}
	s, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%T is not a signer", k)
	}
	return s, nil
}

func parseCerts(t *testing.T, data []byte) []*x509.Certificate {
	t.Helper()
	var out []*x509.Certificate
	for rest := data; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		t.Fatalf("no certificate in %q", data)
	}
	return out
}
