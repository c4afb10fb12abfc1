package etcdstate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/eggo-project/eggo/internal/etcdtest"
	"github.com/eggo-project/eggo/state"
)

// holderEnv, when set to a JSON Config, makes the test binary a lock
// holder instead of running tests: it locks, says "locked <id>" on
// stdout, and sleeps until it is killed.
const holderEnv = "EGGO_ETCDSTATE_TEST_HOLDER"

func TestMain(m *testing.M) {
	if cfg := os.Getenv(holderEnv); cfg != "" {
		os.Exit(holdLock(cfg))
	}
	os.Exit(m.Run())
}

func holdLock(cfgJSON string) int {
	var c Config
	if err := json.Unmarshal([]byte(cfgJSON), &c); err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		return 2
	}
	ctx := context.Background()
	s, err := Open(ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		return 2
	}
	l, err := s.Lock(ctx, state.LockInfo{Operation: "apply"}, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "holder:", err)
		return 2
	}
	fmt.Printf("locked %s\n", l.Info.ID)
	time.Sleep(time.Minute) // the test kills us long before
	return 3
}

// config is a Config for srv with the client certificate.
func config(srv *etcdtest.Server, cluster string) Config {
	return Config{
		Endpoints: []string{srv.Endpoint},
		Prefix:    "/eggo/",
		Cluster:   cluster,
		CAFile:    srv.CAFile,
		CertFile:  srv.CertFile,
		KeyFile:   srv.KeyFile,
		LockTTL:   3 * time.Second,
	}
}

// open opens c and closes the store when t ends.
func open(t *testing.T, c Config) *Store {
	t.Helper()
	s, err := Open(context.Background(), c)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func bg() context.Context { return context.Background() }

func withPrefix() []clientv3.OpOption { return []clientv3.OpOption{clientv3.WithPrefix()} }
