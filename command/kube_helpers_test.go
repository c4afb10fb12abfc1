package command

import (
	"encoding/json"
	"fmt"
	"testing"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/internal/harness/apitest"
	"github.com/eggo-project/eggo/state"
)

// kubeEnv is one real kube-apiserver shared by a test's subtests, each
// subtest keeping its state in a namespace of its own.
type kubeEnv struct {
	srv *apitest.Server
	n   int // namespaces made so far
}

func newKubeEnv(t *testing.T) *kubeEnv { return &kubeEnv{srv: apitest.Start(t)} }

func (e *kubeEnv) name() string { return "kubernetes" }

func (e *kubeEnv) newStore(t *testing.T) backendStore {
	e.n++
	return &kubeStore{t: t, kube: e, ns: e.srv.Namespace(t, fmt.Sprintf("eggo-%d", e.n))}
}

// kubeStore is a site's state in Secrets of a namespace of its own,
// locked by a Lease there.
type kubeStore struct {
	t    *testing.T
	kube *kubeEnv
	ns   string
}

func (s *kubeStore) block(lockTTL, lockTimeout string) string {
	return fmt.Sprintf(`backend "kubernetes" {
  kubeconfig   = %q
  namespace    = %q
  lock_ttl     = %q
  lock_timeout = %q
}
`, s.kube.srv.Kubeconfig, s.ns, lockTTL, lockTimeout)
}

// where is how eggo names the state of the fixture's cluster "t".
func (s *kubeStore) where() string { return "kubernetes secret " + s.ns + "/eggo-state-t" }

func (s *kubeStore) what() string { return "the Secret" }

func (s *kubeStore) versionName() string { return "resourceVersion" }

// read is the state the head holds (these states fit one Secret).
func (s *kubeStore) read() ([]byte, string, bool) {
	s.t.Helper()
	h := s.head()
	if h == nil {
		return nil, "", false
	}
	if h.Annotations["eggo.io/chunks"] != "0" {
		s.t.Fatalf("the test's state is in %s chunks", h.Annotations["eggo.io/chunks"])
	}
	return h.Data["state"], h.ResourceVersion, true
}

func (s *kubeStore) remove() {
	s.t.Helper()
	if err := s.kube.srv.Client.CoreV1().Secrets(s.ns).Delete(ctx10s(s.t), "eggo-state-t", metav1.DeleteOptions{}); err != nil {
		s.t.Fatal(err)
	}
}

// lock is the Lease's holder: a run takes the Lease naming itself.
func (s *kubeStore) lock() (state.LockInfo, bool) {
	s.t.Helper()
	var info state.LockInfo
	l := s.lease()
	if l == nil {
		return info, false
	}
	if named := l.Annotations["eggo.io/lock-info"]; named != "" {
		if err := json.Unmarshal([]byte(named), &info); err != nil {
			s.t.Fatal(err)
		}
	}
	return info, true
}

// head is the state's head Secret, or nil.
func (s *kubeStore) head() *corev1.Secret {
	s.t.Helper()
	sec, err := s.kube.srv.Client.CoreV1().Secrets(s.ns).Get(ctx10s(s.t), "eggo-state-t", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		s.t.Fatal(err)
	}
	return sec
}

// lease is the lock's Lease, or nil.
func (s *kubeStore) lease() *coordv1.Lease {
	s.t.Helper()
	l, err := s.kube.srv.Client.CoordinationV1().Leases(s.ns).Get(ctx10s(s.t), "eggo-lock-t", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		s.t.Fatal(err)
	}
	return l
}

// allSecretData is every byte the namespace's Secrets hold.
func (s *kubeStore) allSecretData() []byte {
	s.t.Helper()
	list, err := s.kube.srv.Client.CoreV1().Secrets(s.ns).List(ctx10s(s.t), metav1.ListOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	var out []byte
	for _, sec := range list.Items {
		for _, v := range sec.Data {
			out = append(out, v...)
		}
	}
	return out
}
