package kube

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/internal/harness/apitest"
	"github.com/eggo-project/eggo/resources"
)

func TestParseRequestedAPIs(t *testing.T) {
	metrics := `# HELP apiserver_requested_deprecated_apis [STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.
# TYPE apiserver_requested_deprecated_apis gauge
apiserver_requested_deprecated_apis{group="flowcontrol.apiserver.k8s.io",removed_release="1.32",resource="flowschemas",subresource="",version="v1beta3"} 1
apiserver_requested_deprecated_apis{group="",removed_release="",resource="componentstatuses",subresource="",version="v1"} 1
apiserver_requested_deprecated_apis{group="storage.k8s.io",removed_release="1.37",resource="volumeattributesclasses",subresource="status",version="v1beta1"} 1
apiserver_request_total{code="200"} 5
`
	got := parseRequestedAPIs(metrics)
	want := []requestedAPI{
		{"flowcontrol.apiserver.k8s.io", "v1beta3", "flowschemas", "", 32},
		{"storage.k8s.io", "v1beta1", "volumeattributesclasses", "status", 37},
	}
	if len(got) != len(want) {
		t.Fatalf("parsed %v, want %v (a deprecated API with no release that removes it is not counted)", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sample %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if s := want[1].String(); s != "storage.k8s.io/v1beta1 volumeattributesclasses/status" {
		t.Errorf("String() = %q", s)
	}
}

// apiserverRecord is an apiserver service at version on master m0, reached
// over the local transport, whose admin kubeconfig is kubeconfig.
func apiserverRecord(version, kubeconfig string) resources.Object {
	m0 := resources.Node{Name: "m0", Address: "127.0.0.1", Connection: resources.Connection{Type: "local"}}
	attrs := resources.Attrs{
		svcComponent:  resources.CompAPIServer,
		svcUnitName:   "kube-apiserver.service",
		svcVersion:    version,
		svcAddress:    "127.0.0.1",
		svcConnection: resources.ConnectionAttrs(m0),
		svcFileModes:  map[string]any{kubeconfig: "0600"},
		svcFiles:      []any{map[string]any{"path": kubeconfig, "mode": "0600", "content": ""}},
	}
	return resources.Object{Addr: resources.ServiceAddr(resources.CompAPIServer, "m0"), Kind: "service", Node: "m0",
		Attrs: resources.Normalize(attrs).(map[string]any)}
}

// TestRemovedAPIsWarningAsksTheAPIServers: a plan that moves the
// apiservers from 1.36 to 1.37 names the API a client asked a real 1.36
// kube-apiserver for that 1.37 no longer serves (IPAddresses in
// networking.k8s.io/v1beta1, served in 1.36 only when turned on, as every
// beta API since 1.24), asked over the master's connection with its admin
// kubeconfig; a plan that stays within the minor asks nothing.
func TestRemovedAPIsWarningAsksTheAPIServers(t *testing.T) {
	srv := apitest.StartWith(t, apitest.Options{Flags: []string{"--runtime-config=networking.k8s.io/v1beta1=true"}})
	apiserver := apitest.Binary
	if bin := os.Getenv("KUBE_APISERVER_BIN"); bin != "" {
		apiserver = bin
	}
	kubectl, err := filepath.Abs(filepath.Join(filepath.Dir(apiserver), "kubectl"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(kubectl); err != nil {
		t.Fatalf("no kubectl beside the kube-apiserver: %v", err)
	}
	t.Setenv("PATH", filepath.Dir(kubectl)+":"+os.Getenv("PATH"))
	admin := filepath.Join(t.TempDir(), "admin.conf")
	data, err := os.ReadFile(srv.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(admin, data, 0o600); err != nil {
		t.Fatal(err)
	}
	rec := apiserverRecord("1.36.5", admin)
	review := func(to string) resources.PlanReview {
		rc := resources.NewRunContext(nil, nil)
		t.Cleanup(func() { rc.Close() })
		after := resources.Attrs{}
		for k, v := range rec.Attrs {
			after[k] = v
		}
		after[svcVersion] = to
		return resources.PlanReview{Recorded: []resources.Object{rec}, Ctx: context.Background(), Run: rc,
			Changes: []resources.Change{{Addr: rec.Addr, Kind: "service", Node: "m0", Action: resources.Update, Before: rec.Attrs, After: after}}}
	}

	if w := removedAPIsWarning(review("1.37.0")); w != "" {
		t.Fatalf("before any client asked for a deprecated API: %q, want no warning", w)
	}
	// A client on the old API: the request kube-apiserver counts.
	res := srv.Client.Discovery().RESTClient().Get().AbsPath("/apis/networking.k8s.io/v1beta1/ipaddresses").Do(context.Background())
	if err := res.Error(); err != nil {
		t.Fatalf("listing IPAddresses in networking.k8s.io/v1beta1 on 1.36: %v", err)
	}
	w := removedAPIsWarning(review("1.37.0"))
	for _, want := range []string{"Kubernetes 1.37 does not serve", "networking.k8s.io/v1beta1 ipaddresses (gone in 1.37; asked of m0)"} {
		if !strings.Contains(w, want) {
			t.Errorf("the warning does not say %q: %q", want, w)
		}
	}
	if w := removedAPIsWarning(review("1.36.6")); w != "" {
		t.Errorf("a patch upgrade: %q, want nothing asked", w)
	}
	noRefresh := review("1.37.0")
	noRefresh.Ctx, noRefresh.Run = nil, nil
	if w := removedAPIsWarning(noRefresh); !strings.Contains(w, "without a refresh") {
		t.Errorf("without a refresh: %q, want it to say eggo did not ask", w)
	}
}
