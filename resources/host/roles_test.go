package host

import (
	"context"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// kubeBundle writes the layout of the Kubernetes bundle (make bundle),
// plus a tool of the user's that no role claims and a directory that only
// looks like a claimed one.
func kubeBundle(f *hostFixture) {
	for _, rel := range []string{
		"usr/local/bin/etcd", "usr/local/bin/etcdctl",
		"usr/local/bin/kube-apiserver", "usr/local/bin/kube-controller-manager", "usr/local/bin/kube-scheduler",
		"usr/local/bin/kubectl", "usr/local/bin/kubelet", "usr/local/bin/kube-proxy",
		"usr/local/bin/containerd", "usr/local/bin/containerd-shim-runc-v2", "usr/local/bin/ctr", "usr/local/bin/runc",
		"opt/cni/bin/bridge", "opt/cni/bin/host-local", "var/lib/eggo/images/pause.tar",
		"usr/local/bin/site-tool", "opt/cni/binaries/readme",
	} {
		f.bundle("amd64", rel, rel, 0o755)
	}
}

// installed lists a files attribute as paths under the fixture's root.
func (f *hostFixture) installed(files any) []string {
	var out []string
	for _, bf := range parseFiles(files) {
		out = append(out, strings.TrimPrefix(bf.Path, f.root+"/"))
	}
	return out
}

func TestHostFilesFollowRoles(t *testing.T) {
	f := newHostFixture(t)
	kubeBundle(f)
	unclaimed := []string{"opt/cni/binaries/readme", "usr/local/bin/site-tool"}
	node := []string{ // a Node's: masters' and workers'
		"opt/cni/bin/bridge", "opt/cni/bin/host-local",
		"usr/local/bin/containerd", "usr/local/bin/containerd-shim-runc-v2", "usr/local/bin/ctr",
		"usr/local/bin/kube-proxy", "usr/local/bin/kubelet", "usr/local/bin/runc",
		"var/lib/eggo/images/pause.tar",
	}
	master := []string{"usr/local/bin/kube-apiserver", "usr/local/bin/kube-controller-manager", "usr/local/bin/kube-scheduler", "usr/local/bin/kubectl"}
	etcd := []string{"usr/local/bin/etcd", "usr/local/bin/etcdctl"}
	union := func(lists ...[]string) []string {
		var out []string
		for _, l := range lists {
			for _, p := range l {
				if !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
		slices.Sort(out)
		return out
	}

	tests := []struct {
		roles []string
		want  []string
	}{
		{[]string{"worker"}, union(unclaimed, node, []string{"usr/local/bin/kubectl"})},
		{[]string{"master"}, union(unclaimed, master, node)},
		{[]string{"etcd"}, union(unclaimed, etcd)},
		{[]string{"loadbalance"}, union(unclaimed)},
		{[]string{"master", "etcd"}, union(unclaimed, master, etcd, node)},
		{[]string{"master", "worker", "etcd"}, union(unclaimed, master, etcd, node)},
		{nil, union(unclaimed)},
	}
	c := f.cluster("ssh")
	for i, tt := range tests {
		c.Nodes = append(c.Nodes, resources.Node{Name: "n" + string(rune('a'+i)), Address: "10.77.0.11", Roles: tt.roles})
	}
	c.Nodes = append(c.Nodes, resources.Node{Name: "w2", Address: "10.77.0.12", Roles: []string{"worker"}})
	ds, err := f.host.Expand(c)
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		if got := f.installed(ds[i].Attrs[hostFiles]); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("roles %v get %v\nwant %v", tt.roles, got, tt.want)
		}
	}
	worker := f.installed(ds[0].Attrs[hostFiles])
	if !slices.Contains(worker, "usr/local/bin/kubelet") || slices.Contains(worker, "usr/local/bin/kube-apiserver") {
		t.Errorf("a worker gets %v: want kubelet and not kube-apiserver", worker)
	}
	if got := f.host.hashed.Load(); got != 17 {
		t.Errorf("hashed %d files for 8 nodes of a 17-file bundle, want 17", got)
	}
	// Nodes with the same roles share one list rather than one each.
	first, last := ds[0].Attrs[hostFiles].([]any), ds[len(ds)-1].Attrs[hostFiles].([]any)
	if &first[0] != &last[0] {
		t.Error("two workers got separate files lists: the list is built once per arch and role set")
	}
}

// TestWorkloadImagesGoToWorkloadNodes: the workloads' images
// (images/workload-*) go to workers only — not to a master, whose
// images/ claim is shorter — and to a master too when the cluster
// schedules workloads there; images/pause.tar still goes to every Node.
func TestWorkloadImagesGoToWorkloadNodes(t *testing.T) {
	f := newHostFixture(t)
	kubeBundle(f)
	f.bundle("amd64", "var/lib/eggo/images/workload-app.tar", "app", 0o644)
	c := f.cluster("ssh")
	c.Nodes = []resources.Node{{Name: "m0", Address: "10.77.0.11", Roles: []string{"master"}}, {Name: "w0", Address: "10.77.0.12", Roles: []string{"worker"}},
		{Name: "e0", Address: "10.77.0.13", Roles: []string{"etcd"}}}
	for _, schedule := range []bool{false, true} {
		c.ScheduleOnMasters = schedule
		ds, err := f.host.Expand(c)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []bool{schedule, true, false} {
			files := f.installed(ds[i].Attrs[hostFiles])
			if got := slices.Contains(files, "var/lib/eggo/images/workload-app.tar"); got != want {
				t.Errorf("schedule_on_masters = %t: %s gets the workload image: %t, want %t", schedule, ds[i].Addr, got, want)
			}
			if got := slices.Contains(files, "var/lib/eggo/images/pause.tar"); got != (i < 2) {
				t.Errorf("schedule_on_masters = %t: %s gets pause.tar: %t", schedule, ds[i].Addr, got)
			}
		}
	}
}

// TestHostRoleChange turns a worker into a load balancer and back: each
// change plans an update of its files, converges the host, and the file
// the operator had before eggo comes back when eggo's copy leaves.
func TestHostRoleChange(t *testing.T) {
	forEachTransport(t, func(t *testing.T, typ string) {
		f := newHostFixture(t)
		f.bundle("amd64", "usr/local/bin/kubelet", "kubelet", 0o755)
		f.bundle("amd64", "usr/local/bin/kubectl", "eggo's kubectl", 0o755)
		f.bundle("amd64", "usr/local/bin/site-tool", "tool", 0o755)
		f.onHost("usr/local/bin/kubectl", "operator's kubectl")
		before := f.snapshot()
		c := f.cluster(typ, "m0")
		_, attrs, err := f.apply(newHostRun(t), nil, f.desired(c))
		if err != nil {
			t.Fatal(err)
		}
		if f.read("usr/local/bin/kubelet") != "kubelet" || f.read("usr/local/bin/kubectl") != "eggo's kubectl" {
			t.Fatal("worker files not installed")
		}

		c.Nodes[0].Roles = []string{"loadbalance"}
		d := f.desired(c)
		ch, err := f.host.Plan(context.Background(), nil, &resources.Object{Addr: d.Addr, Attrs: attrs}, d)
		if err != nil || ch.Action != resources.Update {
			t.Fatalf("plan after a role change = %s %v, want update", ch.Action, err)
		}
		want := "files (- " + f.path("usr/local/bin/kubectl") + ", - " + f.path("usr/local/bin/kubelet") + "), roles"
		if len(ch.Reasons) != 1 || ch.Reasons[0].Detail != want {
			t.Errorf("reasons = %+v\nwant %q", ch.Reasons, want)
		}
		if !reflect.DeepEqual(ch.Changed, []string{hostFiles, hostRoles}) {
			t.Errorf("changed = %v", ch.Changed)
		}
		r := newHostRun(t)
		_, attrs, err = f.apply(r, &resources.Object{Addr: d.Addr, Attrs: attrs}, d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(f.path("usr/local/bin/kubelet")); !os.IsNotExist(err) {
			t.Errorf("kubelet still on a load balancer: %v", err)
		}
		if f.read("usr/local/bin/kubectl") != "operator's kubectl" {
			t.Error("the operator's kubectl was not put back when the node stopped needing eggo's")
		}
		if f.read("usr/local/bin/site-tool") != "tool" {
			t.Error("a file no role claims left the node")
		}
		if got := f.installed(attrs[hostFiles]); !reflect.DeepEqual(got, []string{"usr/local/bin/site-tool"}) {
			t.Errorf("files of the load balancer = %v", got)
		}
		if rep := attrs[hostReplaced].([]any); len(rep) != 0 {
			t.Errorf("replaced after restoring = %v", rep)
		}

		// Back to worker: the files come back, the original moves aside again.
		c.Nodes[0].Roles = []string{"worker"}
		d = f.desired(c)
		ch, attrs, err = f.apply(newHostRun(t), &resources.Object{Addr: d.Addr, Attrs: attrs}, d)
		if err != nil || ch.Action != resources.Update || !strings.Contains(ch.Reasons[0].Detail, "+ "+f.path("usr/local/bin/kubelet")) {
			t.Fatalf("back to worker = %s %+v %v", ch.Action, ch.Reasons, err)
		}
		if f.read("usr/local/bin/kubelet") != "kubelet" || f.read("usr/local/bin/kubectl") != "eggo's kubectl" {
			t.Error("worker files not installed again")
		}
		if _, err := f.delete(newHostRun(t), attrs); err != nil {
			t.Fatal(err)
		}
		if after := f.snapshot(); after != before {
			t.Fatalf("delete after role changes left the root changed\nbefore:\n%s\nafter:\n%s", before, after)
		}
	})
}
