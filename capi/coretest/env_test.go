package coretest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/internal/testenv"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

const (
	ns      = "clusters"
	stateNS = "clusters-state"
	cluster = "demo"
	hostKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHn2BtDkKJ3s9iHd4QJdVbs8QUVTWrbLvLy6Pb3mWUuV"
)

// freeAddr is a loopback address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// webhookCerts writes a self-signed serving certificate core's webhook
// server starts with (nothing calls it: the CRDs are installed without
// their conversion webhooks).
func webhookCerts(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "capi-webhook"}, DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("tls.crt", "CERTIFICATE", der)
	write("tls.key", "EC PRIVATE KEY", kd)
	return dir
}

// workloadKubeconfig is a kubeconfig with embedded client certificate
// data that reaches the test's API server in system:masters: the
// "workload cluster" core connects to.
func workloadKubeconfig(t *testing.T, e *testenv.Env) []byte {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(e.API.UserKubeconfig(t, "eggo:client:capi", "system:masters"))
	if err != nil {
		t.Fatal(err)
	}
	if err := clientcmdapi.FlattenConfig(cfg); err != nil {
		t.Fatal(err)
	}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// generateCluster renders eggo's cluster template with the real
// clusterctl from the repository make components writes, and creates
// every object (strict field validation).
func generateCluster(t *testing.T, e *testenv.Env, clusterctl string, workers int) {
	t.Helper()
	repo := t.TempDir()
	gen := exec.Command("go", "run", "./hack/components", "-out", repo, "-image", "eggo.io/eggo:coretest")
	gen.Dir = e.ModuleDir
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("make components: %v\n%s", err, out)
	}
	cfg := filepath.Join(repo, "clusterctl.yaml")
	must(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`providers:
- {name: eggo, type: InfrastructureProvider, url: "file://%s/infrastructure-eggo/v0.1.0/infrastructure-components.yaml"}
CLUSTERCTL_DISABLE_VERSIONCHECK: "true"
`, repo)), 0o644))
	cmd := exec.Command(clusterctl, "generate", "cluster", cluster, "--config", cfg, "--infrastructure", "eggo:v0.1.0",
		"--kubernetes-version", "v1.36.5", "--control-plane-machine-count", "1", "--worker-machine-count", fmt.Sprint(workers),
		"--target-namespace", ns)
	cmd.Env = append(os.Environ(), "HOME="+repo, "EGGO_BUNDLE_CLAIM=bundle")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("clusterctl generate cluster: %v", err)
	}
	for _, doc := range strings.Split(string(out), "\n---\n") {
		var o map[string]any
		must(t, yaml.Unmarshal([]byte(doc), &o))
		u := &unstructured.Unstructured{Object: o}
		if err := e.Client.Create(ctx(t), u, &client.CreateOptions{Raw: &metav1.CreateOptions{FieldValidation: "Strict"}}); err != nil {
			t.Fatalf("%s %s from clusterctl generate cluster: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// hosts makes the pool: one host for the load balancer, n for Machines.
func hosts(t *testing.T, e *testenv.Env, n int) {
	t.Helper()
	mk := func(name, pool, addr string) {
		must(t, e.Client.Create(ctx(t), &infrav1.SSHHost{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: infrav1.SSHHostSpec{Pool: pool, Address: addr, HostKey: hostKey, SSHKeySecretRef: infrav1.SecretReference{Name: "pool-key"}}}))
	}
	mk("lb0", "load-balancers", "10.0.0.100")
	for i := 0; i < n; i++ {
		mk(fmt.Sprintf("h%d", i), "default", fmt.Sprintf("10.0.0.%d", 11+i))
	}
}

// namespaces makes the Cluster's namespace and the Jobs' state namespace.
func namespaces(t *testing.T, e *testenv.Env) {
	t.Helper()
	for _, n := range []string{ns, stateNS} {
		must(t, e.Client.Create(ctx(t), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}))
	}
	for _, crd := range testenv.ReadCRDs(t, filepath.Join(e.ModuleDir, "..", "controller", "config", "crd")) {
		must(t, e.Client.Create(ctx(t), crd))
	}
	if err := eggov1.AddToScheme(e.Scheme); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
