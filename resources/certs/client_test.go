package certs

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/pki"
)

const (
	capiCert = `cert.client["capi"]`
	capiKC   = `kubeconfig.client["capi"]`
)

// clientCluster is pkiCluster with the certificates block's client
// "capi" (24h, renewed 8h before expiry) and "ci" (the defaults).
func clientCluster() *resources.Cluster {
	c := pkiCluster()
	c.Certificates.Clients = []resources.ClientCert{
		{Name: "capi", Groups: []string{"system:masters"}, Validity: 24 * time.Hour, RenewBefore: 8 * time.Hour, Source: "main.hcl:5"},
		{Name: "ci", Groups: []string{"viewers", "ci"}, Source: "main.hcl:9"},
	}
	return c
}

func TestClientExpand(t *testing.T) {
	w := newPKIWorld(t)
	byAddr := map[string]resources.Desired{}
	for _, d := range w.expand(clientCluster()) {
		byAddr[d.Addr] = d
	}
	if capiKC != KubeconfigClientAddr("capi") || capiCert != resources.CertAddr(resources.CertClient, "capi") {
		t.Fatalf("addresses %s %s", KubeconfigClientAddr("capi"), resources.CertAddr(resources.CertClient, "capi"))
	}
	for _, tc := range []struct {
		name, validity, renew string
		groups                []any
	}{
		{"capi", "24h", "8h", []any{"system:masters"}},
		{"ci", "720h", "240h", []any{"ci", "viewers"}}, // defaults; groups sorted as the certificate has them
	} {
		cert, ok := byAddr[resources.CertAddr(resources.CertClient, tc.name)]
		if !ok {
			t.Fatalf("no certificate for client %s", tc.name)
		}
		a := cert.Attrs
		want := resources.Attrs{
			certIssuer: "pki.cluster_ca", certCommonName: "eggo:client:" + tc.name, certOrg: tc.groups,
			certClient: true, certServer: false, certValidity: tc.validity, certRenewBefore: tc.renew,
			certCA: resources.Ref{Addr: "pki.cluster_ca", Attr: "cert"}, certCAKey: resources.Ref{Addr: "pki.cluster_ca", Attr: "key"},
		}
		for k, v := range want {
			if !reflect.DeepEqual(a[k], v) {
				t.Errorf("%s: %s = %#v, want %#v", cert.Addr, k, a[k], v)
			}
		}
		if cert.Kind != "cert" || cert.Node != "" {
			t.Errorf("%s: kind %q node %q", cert.Addr, cert.Kind, cert.Node)
		}
		kc, ok := byAddr[KubeconfigClientAddr(tc.name)]
		if !ok {
			t.Fatalf("no kubeconfig for client %s", tc.name)
		}
		admin := byAddr[KubeconfigAdminAddr].Attrs
		if kc.Kind != "kubeconfig" || kc.Attrs[kcClient] != tc.name || kc.Attrs[kcCluster] != "demo" ||
			kc.Attrs[kcServer] != admin[kcServer] || kc.Attrs[kcCA] != admin[kcCA] || kc.Attrs[kcUser] != "eggo:client:"+tc.name ||
			kc.Attrs[kcCert] != (resources.Ref{Addr: cert.Addr, Attr: certCert}) || kc.Attrs[kcKey] != (resources.Ref{Addr: cert.Addr, Attr: certKey}) {
			t.Errorf("%s: %v", kc.Addr, kc.Attrs)
		}
	}
	if d := byAddr[capiCert]; d.Source != "main.hcl:5" || d.Where().Start.Line != 5 || byAddr[capiKC].Source != "main.hcl:5" {
		t.Errorf("capi is blamed at %s / %s", d.Source, byAddr[capiKC].Source)
	}
	if _, ok := byAddr[KubeconfigAdminAddr].Attrs[kcClient]; ok {
		t.Error("kubeconfig.admin has a client attribute: every existing record would plan an update")
	}

	// No master, no cluster CA: no clients either.
	c := clientCluster()
	c.Nodes = c.Nodes[2:3]
	for _, d := range w.expand(c) {
		if strings.Contains(d.Addr, "client[") {
			t.Errorf("expanded %s without a master", d.Addr)
		}
	}
}

func TestClientIssuedAndKubeconfigWritten(t *testing.T) {
	w := newPKIWorld(t)
	c := clientCluster()
	changes := w.apply(c)
	if changes[capiCert].Action != resources.Create || changes[capiKC].Action != resources.Create {
		t.Fatalf("first plan: %s %s", changes[capiCert].Action, changes[capiKC].Action)
	}
	cert := w.state[capiCert].Attrs
	info, err := pki.Inspect(resources.AttrString(cert[certCert]))
	if err != nil {
		t.Fatal(err)
	}
	if info.CommonName != "eggo:client:capi" || !slices.Equal(info.Organization, []string{"system:masters"}) ||
		!info.Client || info.Server || !info.NotAfter.Equal(w.now.Add(24*time.Hour)) {
		t.Errorf("capi's certificate: %+v", info)
	}
	ca := resources.AttrString(w.state["pki.cluster_ca"].Attrs[pkiCert])
	if err := verifyChain(resources.AttrString(cert[certCert]), ca, w.now); err != nil {
		t.Errorf("not signed by the cluster CA: %v", err)
	}
	if ci, _ := pki.Inspect(resources.AttrString(w.state[`cert.client["ci"]`].Attrs[certCert])); !ci.NotAfter.Equal(w.now.Add(720 * time.Hour)) {
		t.Errorf("ci's certificate expires %v, want in 720h", ci.NotAfter)
	}

	rec := w.state[capiKC].Attrs
	path := filepath.Join(w.rc.WorkDir, "demo-capi.kubeconfig")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	if rec[kcPath] != "demo-capi.kubeconfig" || rec[kcSHA256] != sha256Text(string(b)) || rec[kcCA] != ca {
		t.Errorf("record: path %v sha256 %v (file %s) ca is the cluster CA's: %v", rec[kcPath], rec[kcSHA256], sha256Text(string(b)), rec[kcCA] == ca)
	}
	key := resources.AttrString(cert[certKey])
	for _, data := range []string{resources.AttrString(cert[certCert]), key} {
		if !strings.Contains(string(b), base64.StdEncoding.EncodeToString([]byte(data))) {
			t.Error("the file does not hold capi's certificate and key")
		}
	}
	// The key is in the file only: not in the record, not in the plan.
	recJSON, _ := json.Marshal(rec)
	afterJSON, _ := json.Marshal(changes[capiKC].After)
	if _, ok := rec[kcKey]; ok || strings.Contains(string(recJSON), "PRIVATE KEY") || strings.Contains(string(afterJSON), "PRIVATE KEY") {
		t.Error("the key of the client kubeconfig is in its record or its plan")
	}
	if !w.kc.Schema().Attributes[kcKey].Sensitive {
		t.Error("the key is not sensitive")
	}
	if err := w.kc.CheckRecord(*w.state[capiKC]); err != nil {
		t.Errorf("eggo's own record: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.rc.WorkDir, "demo-ci.kubeconfig")); err != nil {
		t.Error(err)
	}
	if again, _ := w.plan(c); len(notNoOp(again)) != 0 {
		t.Errorf("second plan: %v", notNoOp(again))
	}
}

// A client's certificate is renewed by the plan that finds it within its
// own renew_before, and its kubeconfig rewritten with it; the other
// certificates, with a longer life, stay.
func TestClientRenewal(t *testing.T) {
	w := newPKIWorld(t)
	c := clientCluster()
	w.apply(c)
	path := filepath.Join(w.rc.WorkDir, "demo-capi.kubeconfig")
	before, _ := os.ReadFile(path)
	notAfter := w.now.Add(24 * time.Hour)

	w.now = notAfter.Add(-9 * time.Hour)
	if early, _ := w.plan(c); len(notNoOp(early)) != 0 {
		t.Errorf("9h before expiry: %v, want no change", notNoOp(early))
	}

	w.now = notAfter.Add(-7 * time.Hour)
	changes, _ := w.plan(c)
	if got := notNoOp(changes); !slices.Equal(got, []string{capiCert, capiKC}) {
		t.Errorf("7h before expiry: %v, want %s and %s", got, capiCert, capiKC)
	}
	want := resources.Reason{Code: resources.ReasonExpiring, Detail: "expires " + notAfter.Format(time.DateOnly) + " (within renew_before 8h)"}
	if ch := changes[capiCert]; ch.Action != resources.Replace || !reflect.DeepEqual(ch.Reasons, []resources.Reason{want}) {
		t.Errorf("%s: %s %v, want replace %v", capiCert, ch.Action, ch.Reasons, want)
	}
	if ch := changes[capiKC]; ch.Action != resources.Update || !slices.Contains(ch.Changed, kcCert) || !slices.Contains(ch.Changed, kcKey) {
		t.Errorf("%s: %s %v changed %v", capiKC, ch.Action, ch.Reasons, ch.Changed)
	}

	w.apply(c)
	after, _ := os.ReadFile(path)
	renewed := resources.AttrString(w.state[capiCert].Attrs[certCert])
	if string(after) == string(before) || !strings.Contains(string(after), base64.StdEncoding.EncodeToString([]byte(renewed))) {
		t.Error("the kubeconfig does not hold the renewed certificate")
	}
	if w.state[capiKC].Attrs[kcSHA256] != sha256Text(string(after)) {
		t.Error("the recorded sha256 is not the rewritten file's")
	}
	if info, _ := pki.Inspect(renewed); !info.NotAfter.Equal(w.now.Add(24 * time.Hour)) {
		t.Errorf("renewed certificate expires %v", info.NotAfter)
	}
	if again, _ := w.plan(c); len(notNoOp(again)) != 0 {
		t.Errorf("after renewal: %v", notNoOp(again))
	}
}

// A destroy (or a client removed) deletes its file and nothing else; the
// record check holds a client's record to CLUSTER-NAME.kubeconfig.
func TestClientKubeconfigDeleteAndRecordCheck(t *testing.T) {
	w := newPKIWorld(t)
	w.apply(clientCluster())
	good := *w.state[capiKC]
	for _, bad := range []resources.Attrs{
		{kcPath: "demo.kubeconfig"},                        // the admin's file
		{kcPath: "demo-ci.kubeconfig"},                     // another client's
		{kcClient: "../x", kcPath: "demo-../x.kubeconfig"}, // a name that is a path
	} {
		o := good
		o.Attrs = maps.Clone(good.Attrs)
		maps.Copy(o.Attrs, bad)
		if err := w.kc.CheckRecord(o); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
	if _, err := w.kc.Delete(context.Background(), w.rc, good); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.rc.WorkDir, "demo-capi.kubeconfig")); !os.IsNotExist(err) {
		t.Errorf("Delete left the client's kubeconfig: %v", err)
	}
	for _, f := range []string{"demo.kubeconfig", "demo-ci.kubeconfig"} {
		if _, err := os.Stat(filepath.Join(w.rc.WorkDir, f)); err != nil {
			t.Errorf("Delete of capi's took %s: %v", f, err)
		}
	}
}
