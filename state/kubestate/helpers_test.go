package kubestate

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/internal/harness/apitest"
	"github.com/eggo-project/eggo/state/statetest"
)

// holderEnv, when set to a JSON Config, makes the test binary a lock
// holder instead of running tests (see statetest.RunOrHoldLock).
const holderEnv = "EGGO_KUBESTATE_TEST_HOLDER"

func TestMain(m *testing.M) { statetest.RunOrHoldLock(m, holderEnv, Open, (*Store).Lock) }

// env is one real apiserver shared by a test's subtests; each subtest
// keeps its objects in a namespace of its own.
type env struct {
	srv *apitest.Server
}

func newEnv(t *testing.T) *env { return &env{srv: apitest.Start(t)} }

// config is a Config for the subtest t in a fresh namespace, reaching the
// server through the admin kubeconfig.
func (e *env) config(t *testing.T, cluster string) Config {
	t.Helper()
	ns := namespaceFor(t)
	if _, err := e.srv.Client.CoreV1().Namespaces().Get(bg(), ns, metav1.GetOptions{}); err != nil {
		e.srv.Namespace(t, ns)
	}
	return Config{Kubeconfig: e.srv.Kubeconfig, Namespace: ns, Cluster: cluster, LockTTL: 3 * time.Second}
}

// namespaceFor is a namespace named after the subtest t: its last words
// as a DNS label.
func namespaceFor(t *testing.T) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return '-'
	}, t.Name())
	if len(name) > 50 {
		name = name[len(name)-50:]
	}
	return "t-" + strings.Trim(name, "-")
}

// open opens c and closes the store when t ends.
func open(t *testing.T, c Config) *Store {
	t.Helper()
	return statetest.Open(t, Open, c)
}

// secrets lists the cluster's Secrets as the admin sees them.
func (e *env) secrets(t *testing.T, s *Store) []corev1.Secret {
	t.Helper()
	list, err := e.srv.Client.CoreV1().Secrets(s.Namespace()).List(bg(), metav1.ListOptions{LabelSelector: s.selector("")})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// bg is the context of the tests' calls: each request is bounded by the
// store's RequestTimeout.
func bg() context.Context { return context.Background() }

func wantIn(t *testing.T, msg string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q lacks %q", msg, w)
		}
	}
}
