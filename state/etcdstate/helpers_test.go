package etcdstate

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/eggo-project/eggo/internal/harness/etcdtest"
	"github.com/eggo-project/eggo/state/statetest"
)

// holderEnv, when set to a JSON Config, makes the test binary a lock
// holder instead of running tests (see statetest.RunOrHoldLock).
const holderEnv = "EGGO_ETCDSTATE_TEST_HOLDER"

func TestMain(m *testing.M) { statetest.RunOrHoldLock(m, holderEnv, Open, (*Store).Lock) }

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
	return statetest.Open(t, Open, c)
}

func bg() context.Context { return context.Background() }

func withPrefix() []clientv3.OpOption { return []clientv3.OpOption{clientv3.WithPrefix()} }
