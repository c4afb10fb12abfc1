package command

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/internal/apitest"
	"github.com/eggo-project/eggo/state"
)

// kubeEnv is one real kube-apiserver shared by a test's subtests, each
// subtest keeping its state in a namespace of its own.
type kubeEnv struct {
	srv *apitest.Server
	n   int // namespaces made so far
}

func newKubeEnv(t *testing.T) *kubeEnv { return &kubeEnv{srv: apitest.Start(t)} }

// kubeSite is a fixture whose configuration keeps its state in the
// kubernetes backend.
type kubeSite struct {
	*fixture
	*slowHook
	kube *kubeEnv
	ns   string
}

// site makes a fixture with a backend "kubernetes" block (backend.hcl
// beside the fixture's main.hcl), in a fresh namespace, and a slow hook.
func (e *kubeEnv) site(t *testing.T, lockTTL, lockTimeout string) *kubeSite {
	t.Helper()
	e.n++
	f := newFixture(t)
	s := &kubeSite{fixture: f, slowHook: f.addSlowHook(), kube: e, ns: e.srv.Namespace(t, fmt.Sprintf("eggo-%d", e.n))}
	s.writeBackend(lockTTL, lockTimeout)
	return s
}

func (s *kubeSite) writeBackend(lockTTL, lockTimeout string) {
	s.t.Helper()
	s.write("backend.hcl", fmt.Sprintf(`backend "kubernetes" {
  kubeconfig   = %q
  namespace    = %q
  lock_ttl     = %q
  lock_timeout = %q
}
`, s.kube.srv.Kubeconfig, s.ns, lockTTL, lockTimeout))
}

// where is how eggo names the state of the fixture's cluster "t".
func (s *kubeSite) where() string { return "kubernetes secret " + s.ns + "/eggo-state-t" }

func ctx10s(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// head is the state's head Secret, or nil.
func (s *kubeSite) head() *corev1.Secret {
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

// stored is the state the head holds (these states fit one Secret); the
// test fails if there is none.
func (s *kubeSite) stored() (*state.State, []byte, string) {
	s.t.Helper()
	h := s.head()
	if h == nil {
		s.t.Fatalf("no state in %s", s.where())
	}
	if h.Annotations["eggo.io/chunks"] != "0" {
		s.t.Fatalf("the test's state is in %s chunks", h.Annotations["eggo.io/chunks"])
	}
	data := h.Data["state"]
	st, err := state.Decode(data, s.where())
	if err != nil {
		s.t.Fatalf("the state in the Secret does not decode: %v", err)
	}
	return st, data, h.ResourceVersion
}

// allSecretData is every byte the namespace's Secrets hold.
func (s *kubeSite) allSecretData() []byte {
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

// lease is the lock's Lease, or nil.
func (s *kubeSite) lease() *coordv1.Lease {
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

// lockHolderID is the lock ID of the Lease's holder.
func (s *kubeSite) lockHolderID() string {
	s.t.Helper()
	l := s.lease()
	if l == nil {
		s.t.Fatalf("%s is not locked", s.where())
	}
	var info state.LockInfo
	if err := json.Unmarshal([]byte(l.Annotations["eggo.io/lock-info"]), &info); err != nil {
		s.t.Fatal(err)
	}
	return info.ID
}

// lockHolder waits until p holds the Lease and returns its LockInfo; the
// test fails if p ends first or after within.
func (s *kubeSite) lockHolder(p *proc, within time.Duration) state.LockInfo {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		select {
		case <-p.done:
			s.t.Fatalf("eggo %v ended (exit %d) before it held the lock:\n%s", p.cmd.Args[1:], p.code, p.output().all())
		default:
		}
		if l := s.lease(); l != nil && l.Annotations["eggo.io/lock-info"] != "" {
			var info state.LockInfo
			if err := json.Unmarshal([]byte(l.Annotations["eggo.io/lock-info"]), &info); err != nil {
				s.t.Fatal(err)
			}
			if info.PID == p.cmd.Process.Pid {
				return info
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("pid %d did not take the lock of %s within %s", p.cmd.Process.Pid, s.where(), within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// inKubernetes fails unless the state is in its Secret and the
// configuration directory holds no state file.
func (s *kubeSite) inKubernetes() {
	s.t.Helper()
	assertNoStateFile(s.t, s.fixture)
	if s.head() == nil {
		s.t.Fatalf("no state in %s", s.where())
	}
}
