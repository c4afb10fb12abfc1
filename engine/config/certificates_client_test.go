package config

import (
	"reflect"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources"
)

// TestCertificateClients decodes client blocks: defaults (720h, renew a
// third of it before expiry), values written, the order written, and
// where each block is.
func TestCertificateClients(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.hcl": `
cluster "demo" {
  kubernetes_version = "1.31.4"
  certificates {
    client "capi" {
      groups       = ["system:masters"]
      validity     = "24h"
      renew_before = "8h"
    }
    client "ci-2" {
      groups = ["ci", "viewers"]
    }
    client "short" {
      groups   = ["ops"]
      validity = "3h"
    }
  }
}
` + oneNode})
	got := mustLoad(t, dir, VarInput{}).Cluster.Certificates.Clients
	want := []resources.ClientCert{
		{Name: "capi", Groups: []string{"system:masters"}, Validity: 24 * time.Hour, RenewBefore: 8 * time.Hour, Source: "main.hcl:5"},
		{Name: "ci-2", Groups: []string{"ci", "viewers"}, Validity: 720 * time.Hour, RenewBefore: 240 * time.Hour, Source: "main.hcl:10"},
		{Name: "short", Groups: []string{"ops"}, Validity: 3 * time.Hour, RenewBefore: time.Hour, Source: "main.hcl:13"},
	}
	if len(got) != len(want) {
		t.Fatalf("clients = %+v", got)
	}
	for i := range want {
		r := got[i].Range
		if r.Start.Line != got[i].Where().Start.Line || r.String() != want[i].Source {
			t.Errorf("client %s: range %v, want line of %s", got[i].Name, r, want[i].Source)
		}
		got[i].Range = resources.SourceRange{}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("client %d =\n%+v\nwant\n%+v", i, got[i], want[i])
		}
	}

	// None written: none, with or without a certificates block.
	for _, src := range []string{minimal + oneNode, `
cluster "demo" {
  kubernetes_version = "1.31.4"
  certificates {
    validity     = "48h"
    renew_before = "12h"
  }
}
` + oneNode} {
		if c := mustLoad(t, writeDir(t, map[string]string{"main.hcl": src}), VarInput{}).Cluster; c.Certificates.Clients != nil {
			t.Errorf("clients = %+v, want none", c.Certificates.Clients)
		}
	}
}
