package kube

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/providers/shell"
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

// TestUndoneSwitchKeepsTheDirectoriesItMade: a switch of a unit to its
// static pod that fails is undone — the unit runs again, under its old
// record — but the directories the attempt made (recorded before it made
// them) stay in that record, so removing the service removes them. Dropped,
// the next switch found them there, took them for no one's, and a destroy
// left /etc/kubernetes/manifests and the manifests' backup directory behind.
// The undo also removes the units' backup directory it emptied.
func TestUndoneSwitchKeepsTheDirectoriesItMade(t *testing.T) {
	binary, pod := schedulerBothWays(t)
	for _, d := range []resources.Desired{binary, pod} {
		d.Attrs[svcConnection] = map[string]any{"type": "undo-switch"}
	}
	prior := recorded(binary, healthyLive(binary))
	prior.Attrs[svcCreatedDirs] = []any{"/etc/kubernetes/kube-scheduler"}

	host := resourcestest.NewRecorder("undo-switch")
	made := []string{"/etc/kubernetes/manifests", "/var/lib/eggo/manifests-backup"}
	host.Answer = func(_, _, script string) (string, error) {
		switch {
		case strings.Contains(script, "|| echo absent"): // the claim's probe
			return "absent " + strings.Join(made, "\nabsent ") + "\n", nil
		case strings.HasPrefix(script, "set -e\nmkdir -p"): // runPod's first step
			return "", errors.New("no space left on device")
		}
		return "", nil
	}
	rc := resources.NewRunContext(nil, nil)
	defer rc.Close()
	attrs, err := Service{}.Update(t.Context(), rc, *prior, pod, resources.Change{Action: resources.Update})
	if err == nil || !strings.Contains(err.Error(), "the switch is undone") {
		t.Fatalf("the failed switch: %v, want it undone", err)
	}
	if s := parseService(attrs); s.Pod != nil || s.UnitName != "kube-scheduler.service" {
		t.Errorf("the record after the undone switch is not the unit's: %+v", s)
	}
	want := append([]string{"/etc/kubernetes/kube-scheduler"}, made...)
	slices.Sort(want)
	if got := resources.StringList(attrs[svcCreatedDirs]); !slices.Equal(got, want) {
		t.Errorf("created dirs recorded after the undone switch: %v, want %v", got, want)
	}
	if got := resources.StringList(prior.Attrs[svcCreatedDirs]); len(got) != 1 {
		t.Errorf("the prior record was changed in place: %v", got)
	}
	var undo string
	for _, r := range host.Runs() {
		if strings.Contains(r.Stdin, "systemctl enable -q --now") {
			undo = r.Stdin
		}
	}
	if !strings.Contains(undo, "rmdir "+shell.Quote(unitBackupDir)) {
		t.Errorf("the undo does not remove the units' backup directory:\n%s", undo)
	}
}
