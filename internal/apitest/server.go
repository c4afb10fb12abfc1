// Package apitest starts a real kube-apiserver for a test: the binary of
// the offline bundle, on top of a real etcd (internal/etcdtest), on free
// loopback ports, with certificates made for it, and an admin kubeconfig
// and client to talk to it. Nothing else of a cluster runs: no
// controller-manager, no scheduler, no kubelet; objects are stored and
// served exactly as a real cluster's API stores and serves them, which is
// what code that keeps data in the API (eggo's kubernetes state backend,
// the GitOps controller) needs to be tested against.
package apitest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/eggo-project/eggo/internal/etcdtest"
)

// Binary is the kube-apiserver of the offline bundle (`make bundle`);
// KUBE_APISERVER_BIN overrides it.
var Binary = "/var/cache/eggo/bundle/v1.31.4/amd64/usr/local/bin/kube-apiserver"

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

	certs  files
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has exited and been reaped
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
	bin := Binary
	if b := os.Getenv("KUBE_APISERVER_BIN"); b != "" {
		bin = b
	}
	if _, err := os.Stat(bin); err != nil {
		if testing.Short() {
			t.Skipf("no kube-apiserver at %s (-short): %v", bin, err)
		}
		t.Fatalf("no kube-apiserver at %s: run `make bundle` (or set KUBE_APISERVER_BIN): %v", bin, err)
	}
	s := &Server{Etcd: etcdtest.Start(t), Dir: t.TempDir()}
	var err error
	if s.certs, err = writeFiles(s.Dir); err != nil {
		t.Fatalf("kube-apiserver test certificates: %v", err)
	}
	// A free port can be taken between our probe and the bind: try again
	// with another rather than fail the test.
	for attempt := 1; attempt <= 3; attempt++ {
		if err = s.start(bin); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("starting kube-apiserver: %v\n%s", err, s.logTail())
	}
	t.Cleanup(s.stop)
	return s
}

// start runs the apiserver on a fresh port and waits until it is ready.
func (s *Server) start(bin string) error {
	port, err := etcdtest.FreePort()
	if err != nil {
		return err
	}
	s.URL = "https://127.0.0.1:" + strconv.Itoa(port)
	if err := s.connect(); err != nil {
		return err
	}
	s.LogFile = filepath.Join(s.Dir, "kube-apiserver.log")
	log, err := os.Create(s.LogFile)
	if err != nil {
		return err
	}
	defer log.Close() // the apiserver holds its own descriptor
	s.cmd = exec.Command(bin, s.flags(port)...)
	s.cmd.Stdout, s.cmd.Stderr = log, log
	// It dies with the test binary even if the test is killed.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.exited = make(chan struct{})
	go func() { s.cmd.Wait(); close(s.exited) }()
	if err := s.waitReady(); err != nil {
		s.stop()
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
	return []string{
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
	}
}

// stop kills the apiserver and waits until it is gone. It runs before
// etcd's own cleanup (registered earlier), so etcd outlives its client.
func (s *Server) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.exited
}

func (s *Server) logTail() string {
	data, _ := os.ReadFile(s.LogFile)
	if len(data) > 6000 {
		data = data[len(data)-6000:]
	}
	return fmt.Sprintf("kube-apiserver log %s:\n%s", s.LogFile, data)
}
