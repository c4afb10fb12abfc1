package command

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/eggo-project/eggo/internal/harness/etcdtest"
	"github.com/eggo-project/eggo/state"
)

// etcdEnv is one real etcd shared by a test's subtests (each subtest uses
// its own key prefix), a client of its own to look at what eggo stored,
// for the tests that need real eggo processes, this test binary as eggo.
type etcdEnv struct {
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
	return &etcdEnv{srv: srv, client: c}
}

func (e *etcdEnv) name() string { return "etcd" }

func (e *etcdEnv) newStore(t *testing.T) backendStore {
	return &etcdStore{t: t, etcd: e, prefix: "/eggo/" + strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + "/"}
}

// etcdStore is a site's state in etcd, under a prefix of its own.
type etcdStore struct {
	t      *testing.T
	etcd   *etcdEnv
	prefix string
}

func (s *etcdStore) block(lockTTL, lockTimeout string) string {
	// lock_timeout = "0s", as the documentation writes the default, is
	// refused by the configuration decoder ("must be a positive
	// duration"): 0 is said by leaving it out.
	timeout := ""
	if lockTimeout != "0s" {
		timeout = fmt.Sprintf("  lock_timeout = %q\n", lockTimeout)
	}
	return fmt.Sprintf(`backend "etcd" {
  endpoints    = [%q]
  prefix       = %q
  ca_file      = %q
  cert_file    = %q
  key_file     = %q
  lock_ttl     = %q
%s}
`, s.etcd.srv.Endpoint, s.prefix, s.etcd.srv.CAFile, s.etcd.srv.CertFile, s.etcd.srv.KeyFile, lockTTL, timeout)
}

// key is where eggo keeps the state of the fixture's cluster "t".
func (s *etcdStore) key() string { return s.prefix + "t" }

func (s *etcdStore) lockInfoKey() string { return s.key() + "/lock-info" }

func (s *etcdStore) where() string { return "etcd key " + s.key() }

func (s *etcdStore) what() string { return "etcd" }

func (s *etcdStore) versionName() string { return "revision" }

func (s *etcdStore) read() ([]byte, string, bool) {
	data, rev, ok := s.get(s.key())
	return data, strconv.FormatInt(rev, 10), ok
}

func (s *etcdStore) remove() {
	s.t.Helper()
	if _, err := s.etcd.client.Delete(ctx10s(s.t), s.key()); err != nil {
		s.t.Fatal(err)
	}
}

// lock is the holder's info from the lock-info key: a holder writes it
// right after taking the lock.
func (s *etcdStore) lock() (state.LockInfo, bool) {
	s.t.Helper()
	var info state.LockInfo
	v, _, ok := s.get(s.lockInfoKey())
	if ok {
		if err := json.Unmarshal(v, &info); err != nil {
			s.t.Fatalf("lock info at %s: %v", s.lockInfoKey(), err)
		}
	}
	return info, ok
}

// get reads a key directly from etcd: its value and mod revision, or
// ok=false when it does not exist.
func (s *etcdStore) get(key string) (value []byte, modRev int64, ok bool) {
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

// history is every version the state key had, oldest first, read back
// through etcd's MVCC history (the test etcd never compacts).
func (s *etcdStore) history() []*state.State {
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
