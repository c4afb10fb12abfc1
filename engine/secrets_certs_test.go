package engine

import (
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/certs"
)

// A plan without an identity, on an unchanged cluster whose CA keys,
// certificate keys and kubeconfig are sealed, invents nothing: the
// resources whose planning needs a sealed value are listed as not
// compared and the plan has no changes (-detailed-exitcode 0). A readable
// change still shows.
func TestPlanWithoutIdentityInventsNoChange(t *testing.T) {
	r := newRig(t)
	alice, aliceID := ageIdentity(t)
	kinds := []resources.Kind{certs.NewPKI(), certs.NewCert(), certs.NewKubeconfig()}
	c := &resources.Cluster{Name: "demo", KubernetesVersion: "1.31.4", ConfigDir: "/etc/kubernetes",
		Network:      resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16"},
		Certificates: resources.Certificates{Validity: 8760 * 3600e9, CAValidity: 87600 * 3600e9, RenewBefore: 720 * 3600e9},
		Nodes: []resources.Node{{Name: "m0", Address: "10.0.0.11", Roles: []string{"master", "etcd"}},
			{Name: "w0", Address: "10.0.0.21", Roles: []string{"worker"}}}}
	desired := func(c *resources.Cluster) []resources.Desired {
		out, err := expand(kinds, c)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	o := r.opts()
	o.Kinds = kinds
	o.Keyring = keyringFor(t, []string{alice}, aliceID)
	if res := r.apply(o, r.plan(o, desired(c)...)); !res.OK() {
		t.Fatalf("apply: %v", res.Failed)
	}
	if p := r.plan(o, desired(c)...); p.HasChanges() {
		t.Fatalf("with the identity, an unchanged cluster plans changes: %v", changed(p))
	}

	noID := o
	noID.Keyring = keyringFor(t, []string{alice})
	p := r.plan(noID, desired(c)...)
	if len(p.Unreadable) == 0 {
		t.Fatal("no value was unreadable: the state is not sealed")
	}
	if p.HasChanges() {
		t.Fatalf("without an identity, an unchanged cluster plans changes: %v", changed(p))
	}
	if len(p.Uncompared) == 0 {
		t.Fatal("nothing listed as not compared")
	}

	// A change that needs no secret to see is still planned: a new worker's
	// kubelet certificate.
	c.Nodes = append(c.Nodes, resources.Node{Name: "w1", Address: "10.0.0.22", Roles: []string{"worker"}})
	p = r.plan(noID, desired(c)...)
	if s := p.Step(resources.CertAddr(resources.CertKubelet, "w1")); s == nil || s.Action != resources.Create {
		t.Fatalf("the new worker's certificate is not planned: %v", changed(p))
	}
}

func changed(p *Plan) string {
	var out []string
	for _, s := range p.Steps {
		if s.Action != resources.NoOp {
			out = append(out, string(s.Action)+" "+s.Addr)
		}
	}
	return strings.Join(out, ", ")
}

// What a kind derives from an input that refers to a sealed value (a
// service's file digests, made from files holding a key) is not compared
// either; a change to an input that refers to nothing sealed still is.
func TestDerivedFromSealedIsNotCompared(t *testing.T) {
	sealed := map[string]map[string]bool{"cert.kubelet": {"key": true}}
	d := &resources.Desired{Addr: "service.kubelet", Attrs: resources.Attrs{
		"files": []any{map[string]any{"content": resources.Ref{Addr: "cert.kubelet", Attr: "key"}}},
		"unit":  "[Service]",
	}}
	st := &Step{Change: resources.Change{Addr: "service.kubelet", Action: resources.Update,
		After:   resources.Attrs{"unit": "[Service]", "file_digests": map[string]any{}},
		Changed: []string{"file_digests"}}}
	if !onlySealedChanged(st, d, sealed) {
		t.Error("digests derived from a sealed key are compared")
	}
	st.Changed = []string{"file_digests", "unit"}
	if onlySealedChanged(st, d, sealed) {
		t.Error("a changed unit (no secret in it) is not compared")
	}
	st.Changed = []string{"file_digests"}
	d.Attrs["files"] = []any{map[string]any{"content": "plain"}}
	if onlySealedChanged(st, d, sealed) {
		t.Error("digests of files that refer to nothing sealed are not compared")
	}
}
