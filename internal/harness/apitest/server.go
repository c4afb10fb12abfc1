// Package apitest starts a real kube-apiserver for a test: the binary of
// the offline bundle, on top of a real etcd (internal/harness/etcdtest), on free
// loopback ports, with certificates made for it, and an admin kubeconfig
// and client to talk to it. Nothing else of a cluster runs: no
// controller-manager, no scheduler, no kubelet; objects are stored and
// served exactly as a real cluster's API stores and serves them, which is
// what code that keeps data in the API (eggo's kubernetes state backend,
// the GitOps controller) needs to be tested against.
package apitest

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/eggo-project/eggo/internal/harness/etcdtest"
	"github.com/eggo-project/eggo/internal/harness/proctest"
)

// Binary is the kube-apiserver of the default minor's offline bundle (the
// Makefile's DEMO_VERSION, which make test builds before any test runs);
// KUBE_APISERVER_BIN overrides it.
var Binary = "/var/cache/eggo/bundle/v1.36.5/amd64/usr/local/bin/kube-apiserver"

// Options change the apiserver a test starts.
type Options struct {
	// Flags are added to the apiserver's own (flags), such as
	// --runtime-config to serve an API version that is off by default.
	Flags []string
}

// Server is a running kube-apiserver that trusts client certificates
// signed by its CA.
type Server struct {
	URL        string // https://127.0.0.1:PORT
	Kubeconfig string // an admin kubeconfig (group system:masters), with files beside it
	Config     *rest.Config
	Client     kubernetes.Interface
	Etcd       *etcdtest.Server // where it stores everything
	Dir        string           // its certificates, kubeconfig and log
	LogFile    string           // kube-apiserver's own output

	certs      files
	extraFlags []string
	proc       *proctest.Process
}

// readyTimeout bounds how long the apiserver may take to report /readyz:
// it bootstraps its RBAC roles and system namespaces first, on a machine
// that may be busy with other tests.
const readyTimeout = 90 * time.Second

// Start starts an etcd and a kube-apiserver over it for t. Both are killed
// and their files removed when t ends. Without the binary the test fails,
// saying how to get it, except under -short, where it is skipped.
func Start(t testing.TB) *Server {
	t.Helper()
	return StartWith(t, Options{})
}

// StartWith is Start with options.
func StartWith(t testing.TB, o Options) *Server {
	t.Helper()
	bin, err := proctest.Binary(Binary, "KUBE_APISERVER_BIN")
	if err != nil {
		if testing.Short() {
			t.Skipf("no kube-apiserver at %s (-short): %v", bin, err)
		}
		t.Fatalf("no kube-apiserver at %s: run `make bundle` (or set KUBE_APISERVER_BIN): %v", bin, err)
	}
	s := &Server{Etcd: etcdtest.Start(t), Dir: t.TempDir(), extraFlags: o.Flags}
	if s.certs, err = writeFiles(s.Dir); err != nil {
		t.Fatalf("kube-apiserver test certificates: %v", err)
	}
	if err := proctest.RetryPortRace(func() error { return s.start(bin) }); err != nil {
		t.Fatalf("starting kube-apiserver: %v\n%s", err, proctest.LogTail("kube-apiserver", s.LogFile, 6000))
	}
	// Registered after etcd's own cleanup, so it runs before it: etcd
	// outlives its client.
	t.Cleanup(s.proc.Stop)
	return s
}

// start runs the apiserver on a fresh port and waits until it is ready.
func (s *Server) start(bin string) error {
	port, err := proctest.FreePort()
	if err != nil {
		return err
	}
	s.URL = "https://127.0.0.1:" + strconv.Itoa(port)
	if err := s.connect(); err != nil {
		return err
	}
	s.LogFile = filepath.Join(s.Dir, "kube-apiserver.log")
	if s.proc, err = proctest.Start("kube-apiserver at "+s.URL, exec.Command(bin, s.flags(port)...), s.LogFile); err != nil {
		return err
	}
	if err := s.waitReady(); err != nil {
		s.proc.Stop()
		return err
	}
	return nil
}

// flags are the apiserver's: what a real control plane sets, less what
// needs the rest of a cluster (priority and fairness, the endpoint of the
// kubernetes Service, the ServiceAccount admission, which waits for a
// token controller).
func (s *Server) flags(port int) []string {
	c, e := s.certs, s.Etcd
	return append([]string{
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + c.serverCert,
		"--tls-private-key-file=" + c.serverKey,
		"--client-ca-file=" + c.caFile,
		"--etcd-servers=" + e.Endpoint,
		"--etcd-cafile=" + e.CAFile,
		"--etcd-certfile=" + e.CertFile,
		"--etcd-keyfile=" + e.KeyFile,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + c.saPub,
		"--service-account-signing-key-file=" + c.saKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--authorization-mode=RBAC",
		"--enable-priority-and-fairness=false",
		"--endpoint-reconciler-type=none",
		"--disable-admission-plugins=ServiceAccount",
		"--profiling=false",
	}, s.extraFlags...)
}
