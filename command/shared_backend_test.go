package command

import (
	"slices"
	"testing"
)

// scenario is a CLI test of a shared state backend on a real server of
// it: plan, apply and the state commands run in-process, concurrent and
// killed applies as real eggo processes.
type scenario struct {
	name string
	run  func(t *testing.T, b sharedBackend)
}

// TestSharedBackends drives each shared state backend through the CLI on
// a real server of it, shared by its subtests: every backend passes the
// shared scenarios, then its own, which look at what only it has.
func TestSharedBackends(t *testing.T) {
	backends := []struct {
		name  string
		start func(*testing.T) sharedBackend
		own   []scenario
	}{
		// A real etcd, with TLS and client certificates.
		{"etcd", func(t *testing.T) sharedBackend { return newEtcdEnv(t) }, etcdScenarios},
		// A real kube-apiserver, over a real etcd.
		{"kubernetes", func(t *testing.T) sharedBackend { return newKubeEnv(t) }, kubeScenarios},
	}
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			b := be.start(t)
			for _, sc := range slices.Concat(sharedScenarios, be.own) {
				t.Run(sc.name, func(t *testing.T) { sc.run(t, b) })
			}
		})
	}
}

// sharedScenarios are what every shared backend does alike.
var sharedScenarios = []scenario{
	{"apply keeps the state in the backend", testSharedApply},
	{"push refuses a stale file or another lineage", testSharedPush},
	{"migrate to the backend and back", testSharedMigrate},
	{"concurrent applies with lock_timeout 0", testSharedConcurrentRefused},
	{"a lock_timeout shorter than the holder's run", testSharedWaitThenRefused},
	{"two writers of one state", testSharedTwoWriters},
	{"force-unlock frees a killed holder's lock", testSharedForceUnlock},
}

// testSharedApply: apply, and state pull, list, show and rm, read and
// write the state in the backend and leave no state file; a no-op apply
// writes nothing.
func testSharedApply(t *testing.T, b sharedBackend) {
	s := newSite(t, b, "15s", "0s")
	r := s.mustRun(0, "apply", "-auto-approve")
	mustContain(t, "apply", r.out, "Apply complete! Resources: 1 added")
	s.assertInBackend()
	st, data, version := s.stored()
	if resource(st, "host.n1") == nil {
		t.Fatalf("the state in %s has no host.n1:\n%s", s.store.what(), data)
	}
	s.assertUnlocked("apply")

	if r = s.mustRun(0, "state", "pull"); r.out != string(data) {
		t.Fatalf("state pull printed\n%s\nbut %s holds\n%s", r.out, s.store.what(), data)
	}
	r = s.mustRun(0, "apply", "-auto-approve")
	mustContain(t, "second apply", r.out, "No changes.")
	if _, _, after := s.stored(); after != version {
		t.Fatalf("a no-op apply wrote the state (%s %s → %s)", s.store.versionName(), version, after)
	}
	if r = s.mustRun(0, "state", "list"); r.out != "host.n1\n" {
		t.Fatalf("state list = %q, want host.n1 from %s", r.out, s.store.what())
	}
	r = s.mustRun(0, "state", "show", "host.n1")
	mustContain(t, "state show", r.out, "127.0.0.1", "hello.txt")

	s.mustRun(0, "state", "rm", "host.n1")
	after, _, _ := s.stored()
	if resource(after, "host.n1") != nil || after.Serial != st.Serial+1 || after.Lineage != st.Lineage {
		t.Fatalf("after state rm %s holds serial %d (was %d) with host.n1 %v", s.store.what(), after.Serial, st.Serial, resource(after, "host.n1") != nil)
	}
	s.assertUnlocked("state rm")
	// The list really comes from the backend: with the state gone there is none.
	s.store.remove()
	r = s.mustRun(1, "state", "list")
	mustContain(t, "state list with the state deleted", r.err, "no state at "+s.store.where())
	assertNoStateFile(t, s.fixture)
}
