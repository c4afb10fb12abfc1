package command

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/etcdtest"
	"github.com/eggo-project/eggo/state"
)

// etcdEnv is one real etcd shared by a test's subtests (each subtest uses
// its own key prefix), a client of its own to look at what eggo stored,
// for the tests that need real eggo processes, this test binary as eggo.
type etcdEnv struct {
	t      *testing.T
	srv    *etcdtest.Server
	client *clientv3.Client
}

func newEtcdEnv(t *testing.T) *etcdEnv {
	t.Helper()
	srv := etcdtest.Start(t)
	ca, err := os.ReadFile(srv.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	cert, err := tls.LoadX509KeyPair(srv.CertFile, srv.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{srv.Endpoint},
		DialTimeout: 5 * time.Second,
		TLS:         &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		Logger:      zap.NewNop(),
	})
	if err != nil {
		t.Fatalf("etcd client for the test: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return &etcdEnv{t: t, srv: srv, client: c}
}

// etcdSite is a fixture whose configuration keeps its state in etcd
// under its own prefix.
type etcdSite struct {
	*fixture
	*slowHook
	etcd   *etcdEnv
	prefix string
}

// site makes a fixture with a backend "etcd" block (written to
// backend.hcl beside the fixture's main.hcl) and a slow hook.
func (e *etcdEnv) site(t *testing.T, lockTTL, lockTimeout string) *etcdSite {
	t.Helper()
	f := newFixture(t)
	s := &etcdSite{fixture: f, slowHook: f.addSlowHook(), etcd: e,
		prefix: "/eggo/" + strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + "/"}
	s.writeBackend(lockTTL, lockTimeout)
	return s
}

func (s *etcdSite) writeBackend(lockTTL, lockTimeout string) {
	s.t.Helper()
	// lock_timeout = "0s", as the documentation writes the default, is
	// refused by the configuration decoder ("must be a positive
	// duration"): 0 is said by leaving it out.
	timeout := ""
	if lockTimeout != "0s" {
		timeout = fmt.Sprintf("  lock_timeout = %q\n", lockTimeout)
	}
	s.write("backend.hcl", fmt.Sprintf(`backend "etcd" {
  endpoints    = [%q]
  prefix       = %q
  ca_file      = %q
  cert_file    = %q
  key_file     = %q
  lock_ttl     = %q
%s}
`, s.etcd.srv.Endpoint, s.prefix, s.etcd.srv.CAFile, s.etcd.srv.CertFile, s.etcd.srv.KeyFile, lockTTL, timeout))
}

// key is where eggo keeps the state of the fixture's cluster "t".
func (s *etcdSite) key() string { return s.prefix + "t" }

func (s *etcdSite) lockInfoKey() string { return s.key() + "/lock-info" }

// get reads a key directly from etcd: its value and mod revision, or
// ok=false when it does not exist.
func (s *etcdSite) get(key string) (value []byte, modRev int64, ok bool) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := s.etcd.client.Get(ctx, key)
	if err != nil {
		s.t.Fatalf("reading %s from etcd: %v", key, err)
	}
	if len(resp.Kvs) == 0 {
		return nil, 0, false
	}
	return resp.Kvs[0].Value, resp.Kvs[0].ModRevision, true
}

// stored is the state in etcd, decoded; the test fails if there is none.
func (s *etcdSite) stored() (*state.State, []byte) {
	s.t.Helper()
	data, _, ok := s.get(s.key())
	if !ok {
		s.t.Fatalf("no state at %s in etcd", s.key())
	}
	st, err := state.Decode(data, s.key())
	if err != nil {
		s.t.Fatalf("the state in etcd does not decode: %v", err)
	}
	return st, data
}

// history is every version the state key had, oldest first, read back
// through etcd's MVCC history (the test etcd never compacts).
func (s *etcdSite) history() []*state.State {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []*state.State
	rev := int64(0) // 0: the newest
	for {
		var opts []clientv3.OpOption
		if rev > 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := s.etcd.client.Get(ctx, s.key(), opts...)
		if err != nil {
			s.t.Fatalf("reading the history of %s: %v", s.key(), err)
		}
		if len(resp.Kvs) == 0 {
			break
		}
		kv := resp.Kvs[0]
		st, err := state.Decode(kv.Value, fmt.Sprintf("%s at revision %d", s.key(), kv.ModRevision))
		if err != nil {
			s.t.Fatal(err)
		}
		out = append([]*state.State{st}, out...)
		if kv.Version == 1 {
			break
		}
		rev = kv.ModRevision - 1
	}
	return out
}

// lockHolder waits until the lock-info key exists (p holds the lock and
// has named itself) and returns it; the test fails if p ends first or
// after within.
func (s *etcdSite) lockHolder(p *proc, within time.Duration) state.LockInfo {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		select {
		case <-p.done:
			s.t.Fatalf("eggo %v ended (exit %d) before it held the lock:\n%s", p.cmd.Args[1:], p.code, p.output().all())
		default:
		}
		if v, _, ok := s.get(s.lockInfoKey()); ok {
			var info state.LockInfo
			if err := json.Unmarshal(v, &info); err != nil {
				s.t.Fatalf("lock info at %s: %v", s.lockInfoKey(), err)
			}
			return info
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("nobody took the lock on %s within %s", s.key(), within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func bgCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// resource is the resource at addr in st, or nil.
func resource(st *state.State, addr string) *state.Resource {
	for i := range st.Resources {
		if st.Resources[i].Address == addr {
			return &st.Resources[i]
		}
	}
	return nil
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// assertNoStateFile fails if the fixture's directory holds a state file,
// its backup or its lock: with a shared backend the state goes there.
// (The hooks' audit log, STATE.hooks.log, is local by design.)
func assertNoStateFile(t *testing.T, f *fixture) {
	t.Helper()
	var found []string
	all, _ := filepath.Glob(f.statePath() + "*")
	for _, p := range all {
		if p != engine.AuditLogPath(f.statePath()) {
			found = append(found, p)
		}
	}
	if len(found) > 0 {
		t.Fatalf("the shared backend left state files in the configuration directory: %v", found)
	}
}

// storedWithRev is the state in etcd, its bytes and its revision.
func storedWithRev(s *etcdSite) (*state.State, []byte, int64) {
	s.t.Helper()
	st, data := s.stored()
	_, rev, _ := s.get(s.key())
	return st, data, rev
}

// assertUnchanged fails unless etcd holds data at revision rev.
func assertUnchanged(t *testing.T, s *etcdSite, data []byte, rev int64) {
	t.Helper()
	got, gotRev, ok := s.get(s.key())
	if !ok || gotRev != rev || string(got) != string(data) {
		t.Fatalf("a refused command changed the state in etcd (revision %d → %d, present %v)", rev, gotRev, ok)
	}
}

// waitGone waits until key no longer exists and returns when that was
// seen; the test fails after within.
func waitGone(t *testing.T, s *etcdSite, key string, within time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if _, _, ok := s.get(key); !ok {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still exists after %s", key, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// assertSequential checks a state key's history: one lineage, and each
// write one serial after the one it replaced (or the same serial for a
// write that changed no content the serial counts) — a lost update would
// show as two writes built on the same serial.
func assertSequential(t *testing.T, h []*state.State) []*state.State {
	t.Helper()
	if len(h) == 0 {
		t.Fatal("nothing was ever written to etcd")
	}
	for i := 1; i < len(h); i++ {
		prev, cur := h[i-1], h[i]
		if cur.Lineage != prev.Lineage {
			t.Fatalf("write %d changed the lineage %s → %s", i, prev.Lineage, cur.Lineage)
		}
		if cur.Serial != prev.Serial+1 && cur.Serial != prev.Serial {
			t.Fatalf("write %d went from serial %d to %d: not a sequence of writes", i, prev.Serial, cur.Serial)
		}
	}
	return h
}

// openBackend opens the fixture's state backend as a command does; it is
// closed when t ends.
func openBackend(t *testing.T, s *fixture) state.Backend {
	t.Helper()
	o := engine.Options{Dir: s.dir}
	loaded, diags := engine.LoadConfig(o)
	if diags.HasErrors() {
		t.Fatalf("loading %s: %v", s.dir, diags)
	}
	if err := engine.OpenBackend(&o, loaded.Config); err != nil {
		t.Fatal(err)
	}
	if c, ok := o.Backend.(interface{ Close() error }); ok {
		t.Cleanup(func() { c.Close() })
	}
	return o.Backend
}
