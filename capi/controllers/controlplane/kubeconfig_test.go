package controlplane

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// clientKubeconfig is a kubeconfig whose client certificate ends at
// notAfter.
func clientKubeconfig(t *testing.T, notAfter time.Time) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "eggo:client:capi", Organization: []string{"system:masters"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["work"] = &clientcmdapi.Cluster{Server: "https://10.0.0.100:6443"}
	cfg.AuthInfos["capi"] = &clientcmdapi.AuthInfo{ClientCertificateData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		ClientKeyData: []byte("KEY")}
	cfg.Contexts["work"] = &clientcmdapi.Context{Cluster: "work", AuthInfo: "capi"}
	cfg.CurrentContext = "work"
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// publishInState plays an apply Job: the client's kubeconfig and the CA
// certificate in the state namespace, naming the EggoCluster as uid.
func (e *cpEnv) publishInState(t *testing.T, stateNS string, ec *eggov1.EggoCluster, uid string, kubeconfig []byte) {
	t.Helper()
	ctx := context.Background()
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: stateNS, Labels: map[string]string{eggov1.LabelCluster: ec.Name, eggov1.LabelClusterNamespace: ec.Namespace},
			Annotations: map[string]string{eggov1.AnnotationClusterUID: uid}}
	}
	for _, s := range []*corev1.Secret{
		{ObjectMeta: meta("work-kubeconfig-capi"), Data: map[string][]byte{"value": kubeconfig}},
		{ObjectMeta: meta("work-ca"), Data: map[string][]byte{"tls.crt": []byte("CA CERT")}},
		{ObjectMeta: meta("work-kubeconfig"), Data: map[string][]byte{"value": []byte("THE ADMIN KUBECONFIG")}},
	} {
		err := e.c.Create(ctx, s)
		if apierrors.IsAlreadyExists(err) {
			err = e.c.Update(ctx, s)
		}
		e.must(t, err)
	}
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	ec.Status.StateNamespace = stateNS
	e.must(t, e.c.Status().Update(ctx, ec))
}

// TestControlPlanePublishesKubeconfig: the configuration declares the
// short-lived client "capi"; once a Job published its kubeconfig in the
// state namespace, the control plane writes the contract's
// <cluster>-kubeconfig (that client's, never the admin's) and <cluster>-ca
// in the Cluster's namespace; a Secret published for another EggoCluster
// is not taken; once the certificate is within renewBefore of its end, a
// plan is requested, once.
func TestControlPlanePublishesKubeconfig(t *testing.T) {
	e := startCPEnv(t)
	ctx := context.Background()
	ns, stateNS := "cp-access", "cp-access-state"
	e.setup(t, ns, 1)
	e.must(t, e.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: stateNS}}))
	e.reconcile(t, ns)
	ms := e.machines(t, ns)
	e.provision(t, &ms[0], "h1", "10.0.0.11", `["master","etcd"]`)
	e.reconcile(t, ns)
	ec := &eggov1.EggoCluster{}
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work"}, ec))
	if hcl := *ec.Spec.Config.Inline; !strings.Contains(hcl, `client "capi"`) || !strings.Contains(hcl, `validity     = "720h0m0s"`) ||
		!strings.Contains(hcl, `groups       = ["system:masters"]`) {
		t.Fatalf("the configuration declares no client capi:\n%s", hcl)
	}

	// Published for another EggoCluster (another UID): not taken.
	e.publishInState(t, stateNS, ec, "someone-else", clientKubeconfig(t, time.Now().Add(30*24*time.Hour)))
	e.reconcile(t, ns)
	if err := e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work-kubeconfig"}, &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a kubeconfig published for another EggoCluster was copied: %v", err)
	}

	notAfter := time.Now().Add(30 * 24 * time.Hour).Truncate(time.Second)
	kc := clientKubeconfig(t, notAfter)
	e.publishInState(t, stateNS, ec, string(ec.UID), kc)
	e.reconcile(t, ns)
	var s corev1.Secret
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work-kubeconfig"}, &s))
	cp := e.controlPlane(t, ns)
	if s.Type != clusterv1.ClusterSecretType || s.Labels[clusterv1.ClusterNameLabel] != "work" || string(s.Data["value"]) != string(kc) ||
		len(s.Data) != 1 || !metav1.IsControlledBy(&s, cp) || s.Annotations[NotAfterAnnotation] != notAfter.UTC().Format(time.RFC3339) {
		t.Fatalf("work-kubeconfig: type %s labels %v annotations %v keys %d", s.Type, s.Labels, s.Annotations, len(s.Data))
	}
	var ca corev1.Secret
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work-ca"}, &ca))
	if ca.Type != clusterv1.ClusterSecretType || string(ca.Data["tls.crt"]) != "CA CERT" || len(ca.Data) != 1 {
		t.Fatalf("work-ca: %s %v", ca.Type, ca.Data)
	}
	if cp.Status.KubeconfigNotAfter == nil || !cp.Status.KubeconfigNotAfter.Time.Equal(notAfter) {
		t.Errorf("status.kubeconfigNotAfter %v, want %v", cp.Status.KubeconfigNotAfter, notAfter)
	}
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	if _, ok := ec.Annotations[eggov1.PlanRequestAnnotation]; ok {
		t.Fatal("a plan was requested for a certificate far from its end")
	}

	// Within renewBefore (240h) of its end, on an applied cluster: one
	// plan request, not one a pass.
	soon := time.Now().Add(48 * time.Hour).Truncate(time.Second)
	e.publishInState(t, stateNS, ec, string(ec.UID), clientKubeconfig(t, soon))
	e.appliedAll(t, ec, "h0000000000000000", ms[0].Name)
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	ec.Status.ObservedGeneration = ec.Generation
	e.must(t, e.c.Status().Update(ctx, ec))
	e.reconcile(t, ns)
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	want := "renew-" + soon.UTC().Format("20060102T150405Z")
	if got := ec.Annotations[eggov1.PlanRequestAnnotation]; got != want {
		t.Fatalf("plan request %q, want %q", got, want)
	}
	rv := ec.ResourceVersion
	e.reconcile(t, ns)
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	if ec.ResourceVersion != rv {
		t.Error("the renewal was requested again")
	}
}
