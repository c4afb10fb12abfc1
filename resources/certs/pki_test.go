package certs

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/pki"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

func TestPKIExpand(t *testing.T) {
	w := newPKIWorld(t)
	ds, err := w.pki.Expand(pkiCluster())
	if err != nil {
		t.Fatal(err)
	}
	var addrs []string
	for _, d := range ds {
		addrs = append(addrs, d.Addr)
		if d.Kind != "pki" || d.Node != "" || d.Source != "main.hcl:1" || d.DependsOn != nil {
			t.Errorf("%s: kind %q node %q source %q deps %v", d.Addr, d.Kind, d.Node, d.Source, d.DependsOn)
		}
		if !reflect.DeepEqual(resourcestest.ViaState(t, d.Attrs), d.Attrs) {
			t.Errorf("%s: attributes are not JSON values: %#v", d.Addr, d.Attrs)
		}
	}
	want := []string{"pki.cluster_ca", "pki.etcd_ca", "pki.front_proxy_ca", "pki.service_account"}
	if !reflect.DeepEqual(addrs, want) {
		t.Fatalf("addresses = %v, want %v", addrs, want)
	}
	if a := ds[1].Attrs; a[pkiCommonName] != "etcd-ca" || a[pkiType] != "ca" || a[pkiValidity] != "87600h" || a[pkiRenewBefore] != "720h" {
		t.Errorf("etcd CA attrs = %v", a)
	}
	if ds[3].Attrs[pkiType] != "service-account" {
		t.Errorf("service account attrs = %v", ds[3].Attrs)
	}

	workers := &resources.Cluster{Nodes: []resources.Node{{Name: "w0", Address: "10.0.0.1", Roles: []string{"worker"}}}}
	if ds, _ := w.pki.Expand(workers); len(ds) != 0 {
		t.Errorf("a cluster without master or etcd got %d pki resources", len(ds))
	}
	zero := pkiCluster()
	zero.Certificates = resources.Certificates{}
	if ds, _ := w.pki.Expand(zero); ds[0].Attrs[pkiValidity] != "87600h" || ds[0].Attrs[pkiRenewBefore] != "720h" {
		t.Errorf("zero certificates block: attrs = %v, want the defaults", ds[0].Attrs)
	}
}

func TestPKICreateThenNoOp(t *testing.T) {
	w := newPKIWorld(t)
	c := pkiCluster()
	changes := w.apply(c)
	ch := changes["pki.cluster_ca"]
	if ch.Action != resources.Create || ch.Reasons[0].Code != resources.ReasonNew {
		t.Fatalf("first plan: %+v", ch)
	}
	for _, name := range []string{pkiCert, pkiKey, pkiNotAfter} {
		if _, ok := ch.After[name].(resources.Unknown); !ok {
			t.Errorf("planned %s of a new CA = %v, want known after apply", name, ch.After[name])
		}
	}
	ca := w.state["pki.cluster_ca"].Attrs
	info, err := pki.Inspect(resources.AttrString(ca[pkiCert]))
	if err != nil {
		t.Fatal(err)
	}
	if !info.IsCA || info.CommonName != "kubernetes" {
		t.Errorf("cluster CA: %+v", info)
	}
	if want := w.now.Add(87600 * time.Hour).Format(time.RFC3339); ca[pkiNotAfter] != want {
		t.Errorf("not_after = %v, want %s", ca[pkiNotAfter], want)
	}
	if _, _, err := (pki.KeyPair{CertPEM: resources.AttrString(ca[pkiCert]), KeyPEM: resources.AttrString(ca[pkiKey])}).Parse(); err != nil {
		t.Errorf("recorded CA pair: %v", err)
	}
	sa := w.state["pki.service_account"].Attrs
	if err := saKeyMatches(resources.AttrString(sa[pkiPublicKey]), resources.AttrString(sa[pkiKey])); err != nil {
		t.Errorf("service-account key: %v", err)
	}
	if _, ok := sa[pkiCert]; ok {
		t.Errorf("the service-account key has a cert attribute: %v", sa)
	}

	again, _ := w.plan(c)
	for _, addr := range []string{"pki.cluster_ca", "pki.etcd_ca", "pki.front_proxy_ca", "pki.service_account"} {
		ch := again[addr]
		if ch.Action != resources.NoOp || !reflect.DeepEqual(ch.After, w.state[addr].Attrs) {
			t.Errorf("second plan of %s: %s %v, want no-op with After = recorded", addr, ch.Action, ch.Reasons)
		}
	}
}

func TestPKICAExpiringReplaced(t *testing.T) {
	w := newPKIWorld(t)
	c := pkiCluster()
	w.apply(c)
	notAfter := w.now.Add(87600 * time.Hour)
	w.now = notAfter.Add(-10 * 24 * time.Hour)
	changes, _ := w.plan(c)
	ch := changes["pki.cluster_ca"]
	want := resources.Reason{Code: resources.ReasonExpiring, Detail: "expires " + notAfter.Format(time.DateOnly) + " (within renew_before 720h)"}
	if ch.Action != resources.Replace || !reflect.DeepEqual(ch.Reasons, []resources.Reason{want}) {
		t.Fatalf("CA 10 days before expiry: %s %v, want replace %v", ch.Action, ch.Reasons, want)
	}
	if _, ok := ch.After[pkiKey].(resources.Unknown); !ok {
		t.Errorf("a replaced CA's key is planned as %v, want unknown", ch.After[pkiKey])
	}
	if sa := changes["pki.service_account"]; sa.Action != resources.NoOp {
		t.Errorf("service-account key: %s %v, want no-op (it does not expire)", sa.Action, sa.Reasons)
	}
	old := resources.AttrString(w.state["pki.cluster_ca"].Attrs[pkiCert])
	w.apply(c)
	if resources.AttrString(w.state["pki.cluster_ca"].Attrs[pkiCert]) == old {
		t.Error("the CA was not renewed")
	}
	// Every certificate the cluster CA signed follows it.
	for _, addr := range []string{`cert.apiserver["m0"]`, "cert.admin", `cert.kubelet["w0"]`} {
		if err := verifyChain(resources.AttrString(w.state[addr].Attrs[certCert]), resources.AttrString(w.state["pki.cluster_ca"].Attrs[pkiCert]), w.now); err != nil {
			t.Errorf("%s after the CA was renewed: %v", addr, err)
		}
	}
	if again, _ := w.plan(c); len(notNoOp(again)) != 0 {
		t.Errorf("plan after renewal changes %v", notNoOp(again))
	}
}

func TestPKIValidityChangeKeepsKey(t *testing.T) {
	w := newPKIWorld(t)
	c := pkiCluster()
	w.apply(c)
	before := w.state["pki.cluster_ca"].Attrs
	c.Certificates.CAValidity = 50000 * time.Hour
	changes := w.apply(c)
	ch := changes["pki.cluster_ca"]
	if ch.Action != resources.Update || !reflect.DeepEqual(ch.Changed, []string{pkiValidity}) || ch.After[pkiKey] != before[pkiKey] {
		t.Fatalf("new ca_validity: %s changed %v reasons %v, want an update keeping the key", ch.Action, ch.Changed, ch.Reasons)
	}
	after := w.state["pki.cluster_ca"].Attrs
	if after[pkiKey] != before[pkiKey] || after[pkiCert] != before[pkiCert] || after[pkiValidity] != "50000h" {
		t.Errorf("after the update: validity %v, same key %v, same cert %v", after[pkiValidity], after[pkiKey] == before[pkiKey], after[pkiCert] == before[pkiCert])
	}
	// The CA keeps its key, so no certificate it signed is touched.
	if got := notNoOp(changes); !reflect.DeepEqual(got, []string{"pki.cluster_ca", "pki.etcd_ca", "pki.front_proxy_ca"}) {
		t.Errorf("a new ca_validity changes %v, want only the CAs", got)
	}
}

func TestPKIPendingCreate(t *testing.T) {
	w := newPKIWorld(t)
	ds, _ := w.pki.Expand(pkiCluster())
	prior := &resources.Object{Addr: ds[0].Addr, Kind: "pki", Attrs: resources.Attrs{}, Pending: true}
	ch, err := w.pki.Plan(context.Background(), w.rc, prior, ds[0])
	if err != nil || ch.Action != resources.Create || ch.Reasons[0].Code != resources.ReasonPending {
		t.Fatalf("a create that stopped: %+v %v", ch, err)
	}
	if _, err := w.pki.Create(context.Background(), w.rc, resources.Desired{Addr: "pki.x", Attrs: resources.Attrs{pkiType: "rsa"}}, resources.Change{}); err == nil ||
		!strings.Contains(err.Error(), "pki.x") {
		t.Errorf("unknown type: %v", err)
	}
}
