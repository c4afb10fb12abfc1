package kube

import (
	"slices"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

// TestClaimSharesTheDirectoriesSiblingsCreated: a directory the probe finds
// on the host is recorded as eggo's when another component of the same
// node recorded it (it made it a moment ago, or in an earlier run), so
// whichever of them is deleted last removes it; one nobody recorded (the
// host's own /etc) and one recorded on another node are not.
func TestClaimSharesTheDirectoriesSiblingsCreated(t *testing.T) {
	rc := resources.NewRunContext(nil, nil)
	recorded := map[string]resources.Object{
		EtcdMemberAddr("m0"): {Addr: EtcdMemberAddr("m0"), Node: "m0", Attrs: resources.Attrs{svcCreatedDirs: []any{"/etc/kubernetes", "/etc/kubernetes/etcd"}}},
		resources.ServiceAddr(resources.CompKubelet, "m1"): {Addr: resources.ServiceAddr(resources.CompKubelet, "m1"), Node: "m1",
			Attrs: resources.Attrs{svcCreatedDirs: []any{"/var/lib/kubelet"}}},
	}
	rc.RecordedAt = func(addr string) (resources.Object, bool) { o, ok := recorded[addr]; return o, ok }
	svc := service{Component: resources.CompAPIServer, UnitName: "kube-apiserver.service", Files: []serviceFile{
		{Path: "/etc/kubernetes/kube-apiserver/config", Mode: "0600", Content: "x"},
		{Path: "/var/lib/kubelet/x", Mode: "0600", Content: "x"},
	}}
	// The recorder's host answers every probe with nothing: every directory is there.
	in := &serviceInstall{rc: rc, conn: resourcestest.NewRecorder("ssh").Conn("m0"), addr: resources.ServiceAddr(resources.CompAPIServer, "m0"), node: "m0", svc: svc}
	rec := resources.Attrs{}
	if err := in.claim(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	if got, want := resources.StringList(rec[svcCreatedDirs]), []string{"/etc/kubernetes"}; !slices.Equal(got, want) {
		t.Errorf("created dirs recorded: %v, want %v (m0's etcd member made it; /etc, /var/lib/kubelet (m1's) are not m0's components')", got, want)
	}
}
