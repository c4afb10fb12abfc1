package certs

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/pki"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

// pkiWorld drives the pki, cert and kubeconfig kinds the way the engine
// does: expand, plan in dependency order with Refs resolved (the value
// recorded, the planned value when known, else Unknown), apply, and keep
// state through a JSON round trip.
type pkiWorld struct {
	t     testing.TB
	now   time.Time
	pki   *PKI
	cert  *Cert
	kc    *Kubeconfig
	rc    *resources.RunContext
	state map[string]*resources.Object
}

func newPKIWorld(t testing.TB) *pkiWorld {
	w := &pkiWorld{t: t, now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), state: map[string]*resources.Object{}}
	clock := func() time.Time { return w.now }
	w.pki, w.cert, w.kc = &PKI{now: clock}, &Cert{now: clock}, NewKubeconfig()
	w.rc = resources.NewRunContext(nil, nil)
	w.rc.WorkDir = t.TempDir()
	return w
}

// pkiCluster has two masters, one etcd node and one worker.
func pkiCluster() *resources.Cluster {
	return &resources.Cluster{
		Name: "demo", Source: "main.hcl:1",
		Network:      resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16", DNSDomain: "cluster.local"},
		Certificates: resources.Certificates{Validity: 8760 * time.Hour, CAValidity: 87600 * time.Hour, RenewBefore: 720 * time.Hour, ExtraSANs: []string{"api.example.com"}},
		Nodes: []resources.Node{
			{Name: "m0", Source: "main.hcl:10", Address: "10.77.0.11", Roles: []string{"master"}},
			{Name: "m1", Source: "main.hcl:11", Address: "10.77.0.12", Roles: []string{"master"}},
			{Name: "e0", Source: "main.hcl:12", Address: "10.77.0.13", Roles: []string{"etcd"}},
			{Name: "w0", Source: "main.hcl:13", Address: "10.77.0.21", Roles: []string{"worker"}},
		},
	}
}

func (w *pkiWorld) kinds() []resources.Kind { return []resources.Kind{w.pki, w.cert, w.kc} }

// expand returns every desired resource, kinds in dependency order.
func (w *pkiWorld) expand(c *resources.Cluster) []resources.Desired {
	w.t.Helper()
	var out []resources.Desired
	for _, k := range w.kinds() {
		ds, err := k.Expand(c)
		if err != nil {
			w.t.Fatalf("%s.Expand: %v", k.Name(), err)
		}
		out = append(out, ds...)
	}
	return out
}

func (w *pkiWorld) kindOf(name string) resources.Kind {
	for _, k := range w.kinds() {
		if k.Name() == name {
			return k
		}
	}
	w.t.Fatalf("no kind %q", name)
	return nil
}

// plan returns the changes, keyed by address, and the desired resources
// as their kinds saw them (Refs resolved for planning).
func (w *pkiWorld) plan(c *resources.Cluster) (map[string]resources.Change, []resources.Desired) {
	w.t.Helper()
	changes := map[string]resources.Change{}
	var planned []resources.Desired
	for _, d := range w.expand(c) {
		d.Attrs = resources.Substitute(d.Attrs, func(r resources.Ref) any {
			if ch, ok := changes[r.Addr]; ok && ch.Action != resources.NoOp {
				if v, ok := ch.After[r.Attr]; ok {
					if _, unknown := v.(resources.Unknown); !unknown {
						return v
					}
				}
				return resources.Unknown{}
			}
			if o := w.state[r.Addr]; o != nil {
				return o.Attrs[r.Attr]
			}
			return resources.Unknown{}
		}).(resources.Attrs)
		ch, err := w.kindOf(d.Kind).Plan(context.Background(), w.rc, w.state[d.Addr], d)
		if err != nil {
			w.t.Fatalf("plan %s: %v", d.Addr, err)
		}
		changes[d.Addr] = ch
		planned = append(planned, d)
	}
	return changes, planned
}

// apply plans and applies, in order, and returns the plan.
func (w *pkiWorld) apply(c *resources.Cluster) map[string]resources.Change {
	w.t.Helper()
	changes, _ := w.plan(c)
	ctx := context.Background()
	for _, d := range w.expand(c) {
		ch := changes[d.Addr]
		d.Attrs = resources.Substitute(d.Attrs, func(r resources.Ref) any { return w.state[r.Addr].Attrs[r.Attr] }).(resources.Attrs)
		k := w.kindOf(d.Kind)
		var (
			attrs resources.Attrs
			err   error
		)
		switch ch.Action {
		case resources.NoOp:
			continue
		case resources.Create:
			attrs, err = k.Create(ctx, w.rc, d, ch)
		case resources.Update:
			attrs, err = k.Update(ctx, w.rc, *w.state[d.Addr], d, ch)
		case resources.Replace:
			if _, err = k.Delete(ctx, w.rc, *w.state[d.Addr]); err == nil {
				attrs, err = k.Create(ctx, w.rc, d, ch)
			}
		}
		if err != nil {
			w.t.Fatalf("apply %s (%s): %v", d.Addr, ch.Action, err)
		}
		w.state[d.Addr] = &resources.Object{Addr: d.Addr, Kind: d.Kind, Node: d.Node, Attrs: resourcestest.ViaState(w.t, attrs)}
	}
	return changes
}

// actions summarises a plan as "action addr" lines, sorted.
func actions(changes map[string]resources.Change) []string {
	var out []string
	for a, ch := range changes {
		out = append(out, string(ch.Action)+" "+a)
	}
	sort.Strings(out)
	return out
}

// notNoOp lists the addresses a plan changes.
func notNoOp(changes map[string]resources.Change) []string {
	var out []string
	for a, ch := range changes {
		if ch.Action != resources.NoOp {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// verifyChain checks that certPEM chains to the CA in caPEM and is valid
// at now (any extended key usage).
func verifyChain(certPEM, caPEM string, now time.Time) error {
	cert, err := pki.ParseCertificate(certPEM)
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM([]byte(caPEM)) {
		return errors.New("no CA certificate")
	}
	_, err = cert.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	return err
}

// saKeyMatches checks that pubPEM is the public half of privPEM, encoded
// as the PKI kind records it (PKIX "PUBLIC KEY").
func saKeyMatches(pubPEM, privPEM string) error {
	priv, err := pki.ParsePrivateKey(privPEM)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKIXPublicKey(priv.Public())
	if err != nil {
		return err
	}
	if string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})) != pubPEM {
		return errors.New("the public key does not match the private key")
	}
	return nil
}
