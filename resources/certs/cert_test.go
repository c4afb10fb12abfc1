package certs

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/pki"
)

func TestCertAddr(t *testing.T) {
	if got := resources.CertAddr(resources.CertAPIServer, "m0"); got != `cert.apiserver["m0"]` {
		t.Errorf("CertAddr = %s", got)
	}
	if got := resources.CertAddr(resources.CertAdmin, ""); got != "cert.admin" {
		t.Errorf("CertAddr = %s", got)
	}
	if got := resources.PKIAddr(resources.PKIEtcdCA); got != "pki.etcd_ca" {
		t.Errorf("PKIAddr = %s", got)
	}
}

func TestCertExpandAddresses(t *testing.T) {
	w := newPKIWorld(t)
	var got []string
	byAddr := map[string]resources.Desired{}
	for _, d := range w.expand(pkiCluster()) {
		got = append(got, d.Addr)
		byAddr[d.Addr] = d
	}
	sort.Strings(got)
	want := []string{
		`cert.admin`, `cert.apiserver["m0"]`, `cert.apiserver["m1"]`, `cert.apiserver_etcd_client`,
		`cert.apiserver_kubelet_client`, `cert.controller_manager`, `cert.etcd_peer["e0"]`, `cert.etcd_server["e0"]`,
		`cert.flannel`, `cert.front_proxy_client`, `cert.kube_proxy`, `cert.kubelet["m0"]`, `cert.kubelet["m1"]`, `cert.kubelet["w0"]`, `cert.scheduler`,
		`kubeconfig.admin`,
		`pki.cluster_ca`, `pki.etcd_ca`, `pki.front_proxy_ca`, `pki.service_account`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("addresses:\n got %v\nwant %v", got, want)
	}
	issuers := map[string]string{
		`cert.apiserver["m0"]`: "pki.cluster_ca", `cert.apiserver_etcd_client`: "pki.etcd_ca",
		`cert.etcd_server["e0"]`: "pki.etcd_ca", `cert.etcd_peer["e0"]`: "pki.etcd_ca",
		`cert.front_proxy_client`: "pki.front_proxy_ca", `cert.kubelet["w0"]`: "pki.cluster_ca", `cert.admin`: "pki.cluster_ca",
	}
	for addr, issuer := range issuers {
		a := byAddr[addr].Attrs
		if a[certCA] != (resources.Ref{Addr: issuer, Attr: "cert"}) || a[certCAKey] != (resources.Ref{Addr: issuer, Attr: "key"}) || a[certIssuer] != issuer {
			t.Errorf("%s: ca %v ca_key %v issuer %v, want Refs to %s", addr, a[certCA], a[certCAKey], a[certIssuer], issuer)
		}
	}
	m0 := byAddr[`cert.apiserver["m0"]`]
	if m0.Node != "m0" || m0.Source != "main.hcl:10" {
		t.Errorf("apiserver[m0]: node %q source %q", m0.Node, m0.Source)
	}
	wantSANs := []any{"api.example.com", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", "localhost", "m0", "m1"}
	if got := m0.Attrs[certDNSNames]; !reflect.DeepEqual(got, wantSANs) {
		t.Errorf("apiserver DNS names = %v, want %v", got, wantSANs)
	}
	if got := m0.Attrs[certIPs]; !reflect.DeepEqual(got, []any{"10.32.0.1", "10.77.0.11", "10.77.0.12", "127.0.0.1"}) {
		t.Errorf("apiserver IPs = %v", got)
	}
	kubelet := byAddr[`cert.kubelet["w0"]`].Attrs
	if kubelet[certCommonName] != "system:node:w0" || !reflect.DeepEqual(kubelet[certOrg], []any{"system:nodes"}) {
		t.Errorf("kubelet: %v", kubelet)
	}
	admin := byAddr["cert.admin"]
	if admin.Node != "" || admin.Source != "main.hcl:1" || admin.Attrs[certValidity] != "8760h" || admin.Attrs[certRenewBefore] != "720h" {
		t.Errorf("admin: node %q source %q attrs %v", admin.Node, admin.Source, admin.Attrs)
	}

	// etcd only: its certificates and no control plane; workers only: nothing.
	etcdOnly := &resources.Cluster{Name: "x", Nodes: []resources.Node{{Name: "e0", Address: "10.0.0.1", Roles: []string{"etcd"}}}}
	if ds, _ := w.cert.Expand(etcdOnly); len(ds) != 2 {
		t.Errorf("etcd-only cluster: %d certificates, want 2", len(ds))
	}
	workers := &resources.Cluster{Name: "x", Nodes: []resources.Node{{Name: "w0", Address: "10.0.0.1", Roles: []string{"worker"}}}}
	for _, k := range w.kinds() {
		if ds, _ := k.Expand(workers); len(ds) != 0 {
			t.Errorf("workers-only cluster: %s expands to %d resources, want none (no CA to sign with)", k.Name(), len(ds))
		}
	}
	// Without workers the masters are still Nodes: kube-proxy's
	// certificate and a kubelet's for each master.
	noWorker := pkiCluster()
	noWorker.Nodes = noWorker.Nodes[:3]
	nodeCerts := map[string]bool{}
	for _, d := range w.expand(noWorker) {
		nodeCerts[d.Addr] = true
	}
	for _, addr := range []string{"cert.kube_proxy", `cert.kubelet["m0"]`, `cert.kubelet["m1"]`} {
		if !nodeCerts[addr] {
			t.Errorf("masters without workers: no %s", addr)
		}
	}
	bad := pkiCluster()
	bad.Network.ServiceCIDR = "nonsense"
	if _, err := w.cert.Expand(bad); err == nil || !strings.Contains(err.Error(), `main.hcl:10: cert.apiserver["m0"]:`) {
		t.Errorf("bad service_cidr: %v", err)
	}
}

func TestCertCreateThenNoOp(t *testing.T) {
	w := newPKIWorld(t)
	c := pkiCluster()
	first := w.apply(c)
	ch := first["cert.admin"]
	if ch.Action != resources.Create || ch.Reasons[0].Code != resources.ReasonNew {
		t.Fatalf("first plan of cert.admin: %+v", ch)
	}
	if _, ok := ch.After[certCA].(resources.Unknown); !ok {
		t.Errorf("cert.admin's ca while its CA is created = %v, want unknown", ch.After[certCA])
	}
	if _, ok := ch.After[certCAKey]; ok {
		t.Error("the planned certificate carries ca_key")
	}
	for addr, o := range w.state {
		if o.Kind != "cert" {
			continue
		}
		a := o.Attrs
		if _, ok := a[certCAKey]; ok {
			t.Errorf("%s records its CA's key", addr)
		}
		issuer := resources.AttrString(a[certIssuer])
		caPEM := resources.AttrString(w.state[issuer].Attrs[pkiCert])
		if a[certCA] != caPEM {
			t.Errorf("%s: recorded ca is not %s's certificate", addr, issuer)
		}
		if err := verifyChain(resources.AttrString(a[certCert]), caPEM, w.now); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
		if _, _, err := (pki.KeyPair{CertPEM: resources.AttrString(a[certCert]), KeyPEM: resources.AttrString(a[certKey])}).Parse(); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
		info, _ := pki.Inspect(resources.AttrString(a[certCert]))
		if a[certSerial] != info.Serial || a[certNotAfter] != w.now.Add(8760*time.Hour).Format(time.RFC3339) {
			t.Errorf("%s: serial %v not_after %v", addr, a[certSerial], a[certNotAfter])
		}
	}
	info, _ := pki.Inspect(resources.AttrString(w.state[`cert.apiserver["m1"]`].Attrs[certCert]))
	if !info.Server || info.Client || !strings.Contains(strings.Join(info.IPs, " "), "10.77.0.12") {
		t.Errorf("apiserver[m1] certificate: %+v", info)
	}

	again, _ := w.plan(c)
	if got := notNoOp(again); len(got) != 0 {
		t.Fatalf("second plan changes %v", got)
	}
	for addr, ch := range again {
		if !reflect.DeepEqual(ch.After, w.state[addr].Attrs) {
			t.Errorf("%s: no-op After is not the recorded attributes", addr)
		}
	}
}

func TestCertExpiringReplaced(t *testing.T) {
	w := newPKIWorld(t)
	c := pkiCluster()
	w.apply(c)
	notAfter := w.now.Add(8760 * time.Hour)
	w.now = notAfter.Add(-240 * time.Hour)
	changes, _ := w.plan(c)
	want := resources.Reason{Code: resources.ReasonExpiring, Detail: "expires " + notAfter.Format(time.DateOnly) + " (within renew_before 720h)"}
	for _, addr := range []string{"cert.admin", `cert.kubelet["w0"]`, `cert.etcd_peer["e0"]`} {
		if ch := changes[addr]; ch.Action != resources.Replace || !reflect.DeepEqual(ch.Reasons, []resources.Reason{want}) {
			t.Errorf("%s 10 days before expiry: %s %v, want replace %v", addr, ch.Action, ch.Reasons, want)
		}
	}
	if ch := changes["pki.cluster_ca"]; ch.Action != resources.NoOp {
		t.Errorf("the CA: %s %v", ch.Action, ch.Reasons)
	}
	// The kubeconfig follows the new admin certificate.
	if ch := changes[KubeconfigAdminAddr]; ch.Action != resources.Update || !strings.Contains(ch.Reasons[0].Detail, "cert") {
		t.Errorf("kubeconfig: %s %v", ch.Action, ch.Reasons)
	}
	// A month earlier nothing is due.
	w.now = notAfter.Add(-721 * time.Hour)
	if early, _ := w.plan(c); len(notNoOp(early)) != 0 {
		t.Errorf("31 days before expiry: %v", notNoOp(early))
	}
	w.now = notAfter.Add(-240 * time.Hour)
	w.apply(c)
	if again, _ := w.plan(c); len(notNoOp(again)) != 0 {
		t.Errorf("after renewal: %v", notNoOp(again))
	}
	if got := resources.AttrString(w.state["cert.admin"].Attrs[certNotAfter]); got != w.now.Add(8760*time.Hour).Format(time.RFC3339) {
		t.Errorf("renewed not_after = %s", got)
	}
}

func TestCertAddedMasterChangesSANs(t *testing.T) {
	w := newPKIWorld(t)
	c := pkiCluster()
	w.apply(c)
	c.Nodes = append(c.Nodes, resources.Node{Name: "m2", Source: "main.hcl:14", Address: "10.77.0.14", Roles: []string{"master"}})
	changes, _ := w.plan(c)
	want := []string{`cert.apiserver["m0"]`, `cert.apiserver["m1"]`, `cert.apiserver["m2"]`, `cert.kubelet["m2"]`} // m2 is a Node too
	if got := notNoOp(changes); !reflect.DeepEqual(got, want) {
		t.Fatalf("adding a master changes %v, want %v", got, want)
	}
	ch := changes[`cert.apiserver["m0"]`]
	if ch.Action != resources.Replace || len(ch.Reasons) != 1 || ch.Reasons[0].Code != resources.ReasonConfig ||
		ch.Reasons[0].Detail != "SANs changed: + m2, + 10.77.0.14" {
		t.Errorf("apiserver[m0]: %s %v", ch.Action, ch.Reasons)
	}
	if !reflect.DeepEqual(ch.Changed, []string{certDNSNames, certIPs}) {
		t.Errorf("changed = %v", ch.Changed)
	}
	if changes[`cert.apiserver["m2"]`].Action != resources.Create {
		t.Errorf("apiserver[m2]: %s", changes[`cert.apiserver["m2"]`].Action)
	}
	w.apply(c)
	info, _ := pki.Inspect(resources.AttrString(w.state[`cert.apiserver["m0"]`].Attrs[certCert]))
	if !strings.Contains(strings.Join(info.IPs, " "), "10.77.0.14") {
		t.Errorf("reissued apiserver[m0] IPs = %v", info.IPs)
	}
}

func TestCertCAReplaced(t *testing.T) {
	w := newPKIWorld(t)
	c := pkiCluster()
	w.apply(c)
	_, planned := w.plan(c)
	var admin resources.Desired
	for _, d := range planned {
		if d.Addr == "cert.admin" {
			admin = d
		}
	}
	prior := w.state["cert.admin"]

	// The CA is being replaced: its certificate is known only after apply.
	unknown := admin
	unknown.Attrs = copyAttrs(admin.Attrs)
	unknown.Attrs[certCA], unknown.Attrs[certCAKey] = resources.Unknown{}, resources.Unknown{}
	ch, err := w.cert.Plan(context.Background(), w.rc, prior, unknown)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Action != resources.Replace || ch.Reasons[0].Code != resources.ReasonConfig || !strings.Contains(ch.Reasons[0].Detail, "pki.cluster_ca is being replaced") {
		t.Errorf("CA unknown: %s %v", ch.Action, ch.Reasons)
	}
	if _, ok := ch.After[certCert].(resources.Unknown); !ok {
		t.Errorf("cert planned as %v, want unknown", ch.After[certCert])
	}

	// Another CA (same name, new key) signs from now on.
	other, err := pki.NewCA("kubernetes", time.Hour*1000, w.now)
	if err != nil {
		t.Fatal(err)
	}
	moved := admin
	moved.Attrs = copyAttrs(admin.Attrs)
	moved.Attrs[certCA], moved.Attrs[certCAKey] = other.CertPEM, other.KeyPEM
	ch, err = w.cert.Plan(context.Background(), w.rc, prior, moved)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Action != resources.Replace || ch.Reasons[0].Detail != "issuer changed: not signed by the current pki.cluster_ca" {
		t.Errorf("other CA: %s %v", ch.Action, ch.Reasons)
	}
	got, err := w.cert.Create(context.Background(), w.rc, moved, ch)
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyChain(resources.AttrString(got[certCert]), other.CertPEM, w.now); err != nil {
		t.Errorf("reissued certificate: %v", err)
	}
}

func TestCertValidityChangeIsRecorded(t *testing.T) {
	w := newPKIWorld(t)
	c := pkiCluster()
	w.apply(c)
	before := w.state["cert.admin"].Attrs
	c.Certificates.Validity = 4000 * time.Hour
	changes := w.apply(c)
	ch := changes["cert.admin"]
	if ch.Action != resources.Update || !reflect.DeepEqual(ch.Changed, []string{certValidity}) {
		t.Fatalf("new validity: %s %v %v", ch.Action, ch.Changed, ch.Reasons)
	}
	after := w.state["cert.admin"].Attrs
	if after[certCert] != before[certCert] || after[certKey] != before[certKey] || after[certValidity] != "4000h" {
		t.Errorf("after the update: validity %v, same cert %v", after[certValidity], after[certCert] == before[certCert])
	}
	if ch := changes[KubeconfigAdminAddr]; ch.Action != resources.NoOp {
		t.Errorf("kubeconfig after a state-only cert update: %s %v", ch.Action, ch.Reasons)
	}
}

// Key material never reaches a reason, a Change's Before/After of a
// replacement or an error.
func TestCertKeysNeverInReasonsOrErrors(t *testing.T) {
	w := newPKIWorld(t)
	c := pkiCluster()
	w.apply(c)
	var keys []string
	for _, o := range w.state {
		if k := resources.AttrString(o.Attrs["key"]); k != "" {
			keys = append(keys, pemBody(k))
		}
	}
	var texts []string
	collect := func(changes map[string]resources.Change) {
		for _, ch := range changes {
			for _, r := range ch.Reasons {
				texts = append(texts, r.Detail)
			}
		}
	}
	_, planned := w.plan(c)
	for _, d := range planned {
		if d.Kind != "cert" {
			continue
		}
		bad := d
		bad.Attrs = copyAttrs(d.Attrs)
		secret := "-----BEGIN PRIVATE KEY-----\nTOPSECRETKEYMATERIAL\n-----END PRIVATE KEY-----\n"
		bad.Attrs[certCAKey] = secret
		if _, err := w.cert.Create(context.Background(), w.rc, bad, resources.Change{}); err == nil {
			t.Fatalf("%s: created with a broken CA key", d.Addr)
		} else {
			if !strings.Contains(err.Error(), d.Addr) {
				t.Errorf("error does not name %s: %v", d.Addr, err)
			}
			texts = append(texts, err.Error())
		}
		// Another CA's key, which does not match the certificate.
		other, _ := pki.NewCA("x", time.Hour, w.now)
		bad.Attrs[certCAKey] = other.KeyPEM
		keys = append(keys, pemBody(other.KeyPEM))
		if _, err := w.cert.Create(context.Background(), w.rc, bad, resources.Change{}); err == nil {
			t.Fatalf("%s: created with a mismatched CA key", d.Addr)
		} else {
			texts = append(texts, err.Error())
		}
		break
	}
	// Expiry, SAN changes and CA renewal together.
	c.Nodes = append(c.Nodes, resources.Node{Name: "m2", Address: "10.77.0.14", Roles: []string{"master"}})
	w.now = w.now.Add(87590 * time.Hour)
	changes, _ := w.plan(c)
	collect(changes)

	keys = append(keys, "TOPSECRETKEYMATERIAL")
	if len(texts) < 5 {
		t.Fatalf("only %d texts collected", len(texts))
	}
	for _, s := range texts {
		if strings.Contains(s, "-----BEGIN") {
			t.Errorf("a reason or error quotes a key: %q", s)
		}
		for _, k := range keys {
			if strings.Contains(s, k) || strings.Contains(s, k[:20]) {
				t.Errorf("key material in %q", s)
			}
		}
	}
}

// pemBody is the first base64 line of a PEM block.
func pemBody(p string) string {
	lines := strings.Split(p, "\n")
	return lines[1]
}

func copyAttrs(a resources.Attrs) resources.Attrs {
	out := make(resources.Attrs, len(a))
	for k, v := range a {
		out[k] = v
	}
	return out
}
