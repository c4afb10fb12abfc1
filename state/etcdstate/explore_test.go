package etcdstate

import (
	"context"
	"testing"

	"github.com/eggo-project/eggo/internal/etcdtest"
)

func TestExplore(t *testing.T) {
	srv := etcdtest.Start(t)
	for name, c := range map[string]Config{
		"nocert":  {Endpoints: []string{srv.Endpoint}, Cluster: "x", CAFile: srv.CAFile},
		"wrongca": {Endpoints: []string{srv.Endpoint}, Cluster: "x", CAFile: srv.OtherCAFile, CertFile: srv.CertFile, KeyFile: srv.KeyFile},
		"ok":      {Endpoints: []string{srv.Endpoint}, Cluster: "x", CAFile: srv.CAFile, CertFile: srv.CertFile, KeyFile: srv.KeyFile},
		"http":    {Endpoints: []string{"http" + srv.Endpoint[5:]}, Cluster: "x", DialTimeout: 1e9},
		"closed":  {Endpoints: []string{"https://127.0.0.1:1"}, Cluster: "x", CAFile: srv.CAFile, DialTimeout: 1e9},
	} {
		s, err := Open(context.Background(), c)
		t.Logf("%s: %v", name, err)
		if err == nil {
			d, r, err := s.Get(context.Background())
			t.Logf("get %q %d %v", d, r, err)
			s.Close()
		}
	}
}
