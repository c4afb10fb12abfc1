package certs

import (
	"maps"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// The kubeconfig record eggo writes passes its check; one naming another
// file — which a delete would remove from the operator's machine when its
// content matches the recorded sha256 — is refused.
func TestKubeconfigRecordCheck(t *testing.T) {
	w := newPKIWorld(t)
	w.apply(pkiCluster())
	good := *w.state[KubeconfigAdminAddr]
	if err := w.kc.CheckRecord(good); err != nil {
		t.Fatalf("eggo's own record: %v", err)
	}
	for _, p := range []any{"/home/operator/.bashrc", "../../.ssh/authorized_keys", "other.kubeconfig", 7} {
		o := good
		o.Attrs = maps.Clone(good.Attrs)
		o.Attrs[kcPath] = p
		if err := w.kc.CheckRecord(o); err == nil || !strings.Contains(err.Error(), "path ") {
			t.Errorf("path %v: %v, want it refused", p, err)
		}
	}
	o := good
	o.Attrs = resources.Attrs{kcCluster: "demo", kcPath: "/etc/shadow"}
	if err := w.kc.CheckRecord(o); err == nil || !strings.Contains(err.Error(), `path "/etc/shadow" is not the file eggo writes beside the state for cluster "demo" (CLUSTER.kubeconfig)`) {
		t.Errorf("an absolute path: %v", err)
	}
}
