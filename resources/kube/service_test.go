package kube

import (
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// testService is a small service with one literal file and one file whose
// content comes from a certificate.
func testService(version, conf string, cert any) resources.Desired {
	s := service{
		Component: "demo", UnitName: "demo.service", Unit: "[Service]\nExecStart=/bin/demo\n",
		Files: []serviceFile{
			{Path: "/etc/demo/demo.conf", Mode: "0644", Content: conf},
			{Path: "/etc/demo/tls.crt", Mode: "0644", Content: cert},
		},
		Health: "true", Version: version,
	}
	a := s.attrs()
	a[svcAddress] = "10.0.0.1"
	a[svcConnection] = map[string]any{"type": "local"}
	return resources.Desired{Addr: resources.ServiceAddr("demo", "n0"), Kind: "service", Node: "n0", Attrs: a}
}

// recorded is what Create would record for d, plus a refresh's live view.
func recorded(d resources.Desired, live *serviceLive) *resources.Object {
	a := recordedService(d.Attrs, nil)
	if live != nil {
		a[svcLive] = live.attrs()
	}
	return &resources.Object{Addr: d.Addr, Kind: d.Kind, Node: d.Node, Attrs: resources.Normalize(a).(map[string]any)}
}

func healthyLive(d resources.Desired) *serviceLive {
	s := parseService(d.Attrs)
	digests, _ := s.digests()
	l := &serviceLive{Active: "active", Unit: resources.SHA256Hex(s.unitText(digests)), Files: map[string]string{}}
	for p, sum := range digests {
		l.Files[p] = sum.(string)
	}
	return l
}

func planOf(t *testing.T, prior *resources.Object, d resources.Desired) resources.Change {
	t.Helper()
	ch, err := planService(serviceSchema(), prior, d)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func reasonText(ch resources.Change) string {
	var parts []string
	for _, r := range ch.Reasons {
		parts = append(parts, r.Code+": "+r.Detail)
	}
	return strings.Join(parts, " | ")
}

func TestServicePlan(t *testing.T) {
	base := testService("1.31.3", "a=1\n", "CERT-1")
	if ch := planOf(t, nil, base); ch.Action != resources.Create {
		t.Fatalf("new service: %s", ch.Action)
	}
	prior := recorded(base, healthyLive(base))
	if ch := planOf(t, prior, base); ch.Action != resources.NoOp {
		t.Fatalf("unchanged service plans %s: %s", ch.Action, reasonText(ch))
	}
	// State never keeps the file sources, which may be keys: a record and
	// a plan's After hold the files' modes and digests, under names that
	// are not sensitive, so that sealing has nothing to do for them.
	if _, ok := prior.Attrs[svcFiles]; ok {
		t.Fatalf("the record keeps the file sources: %v", prior.Attrs[svcFiles])
	}
	if ch := planOf(t, nil, base); ch.After[svcFiles] != nil || len(ch.After[svcFileModes].(map[string]any)) != 2 {
		t.Fatalf("a create's After: files %v, file_modes %v", ch.After[svcFiles], ch.After[svcFileModes])
	}
	if m := prior.Attrs[svcFileModes].(map[string]any); len(m) != 2 || m["/etc/demo/tls.crt"] != "0644" {
		t.Fatalf("recorded modes %v", m)
	}
	if serviceSchema().Attributes[svcFileModes].Sensitive || serviceSchema().Attributes[svcDigests].Sensitive {
		t.Fatal("file_modes or file_digests is sensitive: every service record would be sealed")
	}
	// A record written before file_modes (files as [{path, mode}]) plans
	// as it did: nothing to do.
	old := recorded(base, healthyLive(base))
	delete(old.Attrs, svcFileModes)
	old.Attrs[svcFiles] = []any{map[string]any{"path": "/etc/demo/demo.conf", "mode": "0644"}, map[string]any{"path": "/etc/demo/tls.crt", "mode": "0644"}}
	if ch := planOf(t, old, base); ch.Action != resources.NoOp {
		t.Fatalf("a record with files as [{path, mode}] plans %s: %s", ch.Action, reasonText(ch))
	}
	old.Attrs[svcFiles].([]any)[1].(map[string]any)["mode"] = "0600"
	if ch := planOf(t, old, base); !strings.Contains(reasonText(ch), "/etc/demo/tls.crt (mode)") {
		t.Fatalf("a mode changed in an old record: %s", reasonText(ch))
	}

	tests := []struct {
		name    string
		desired resources.Desired
		live    func(*serviceLive)
		action  resources.Action
		want    []string // substrings of the reasons
	}{
		{"config file changed", testService("1.31.3", "a=2\n", "CERT-1"), nil, resources.Update,
			[]string{"files ~/etc/demo/demo.conf", "restarts demo.service"}},
		{"certificate not known yet", testService("1.31.3", "a=1\n", resources.Unknown{}), nil, resources.Update,
			[]string{"~/etc/demo/tls.crt"}},
		{"upgrade", testService("1.31.4", "a=1\n", "CERT-1"), nil, resources.Update,
			[]string{"upgrade: version 1.31.3 → 1.31.4"}},
		{"stopped outside eggo", base, func(l *serviceLive) { l.Active = "inactive" }, resources.Update,
			[]string{"changed-outside: demo.service is inactive"}},
		{"unit edited outside eggo", base, func(l *serviceLive) { l.Unit = "0000" }, resources.Update,
			[]string{"demo.service modified"}},
		{"file removed outside eggo", base, func(l *serviceLive) { l.Files["/etc/demo/demo.conf"] = "" }, resources.Update,
			[]string{"/etc/demo/demo.conf missing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			live := healthyLive(base)
			if tt.live != nil {
				tt.live(live)
			}
			ch := planOf(t, recorded(base, live), tt.desired)
			if ch.Action != tt.action {
				t.Fatalf("action %s, want %s (%s)", ch.Action, tt.action, reasonText(ch))
			}
			for _, w := range tt.want {
				if !strings.Contains(reasonText(ch), w) {
					t.Errorf("reasons %q lack %q", reasonText(ch), w)
				}
			}
		})
	}

	// A changed health check changes nothing: it runs at the next start,
	// and state does not keep it (a record of it on every node would make
	// a new check an update of every node).
	d := testService("1.31.3", "a=1\n", "CERT-1")
	d.Attrs[svcHealth] = "exit 0"
	if ch := planOf(t, prior, d); ch.Action != resources.NoOp || prior.Attrs[svcHealth] != nil || prior.Attrs[svcHealthTimeout] != nil {
		t.Fatalf("health change: %s %s (recorded health %v)", ch.Action, reasonText(ch), prior.Attrs[svcHealth])
	}
	// A changed cleanup is recorded without a restart: the record names
	// which of eggo's cleanups a delete runs (cleanupToRun).
	d = testService("1.31.3", "a=1\n", "CERT-1")
	d.Attrs[svcCleanup] = "rm -rf /var/lib/demo"
	ch := planOf(t, prior, d)
	if ch.Action != resources.Update || strings.Contains(reasonText(ch), "restarts") || diffService(prior.Attrs, parseService(d.Attrs)).restart {
		t.Fatalf("cleanup change: %s %s", ch.Action, reasonText(ch))
	}
	// A new address replaces the service (another machine).
	d = testService("1.31.3", "a=1\n", "CERT-1")
	d.Attrs[svcAddress] = "10.0.0.2"
	if ch := planOf(t, prior, d); ch.Action != resources.Replace {
		t.Fatalf("new address: %s", ch.Action)
	}
}

func TestEtcdQuorumCheck(t *testing.T) {
	members := func(n int) []resources.Object {
		var out []resources.Object
		for i := 0; i < n; i++ {
			out = append(out, resources.Object{Addr: EtcdMemberAddr(string(rune('a' + i))), Kind: "etcd_member"})
		}
		return out
	}
	deletes := func(n int) []resources.Change {
		var out []resources.Change
		for i := 0; i < n; i++ {
			out = append(out, resources.Change{Addr: EtcdMemberAddr(string(rune('a' + i))), Action: resources.Delete})
		}
		return out
	}
	tests := []struct {
		running, removed int
		destroy          bool
		refuse           string
	}{
		{3, 1, false, ""},
		{2, 1, false, ""}, // one at a time is agreed by the quorum of the moment
		{3, 2, false, "removes 2 of 3 etcd members at once"},
		{5, 2, false, ""},
		{5, 3, false, "short of the quorum of 3"},
		{1, 1, false, "removes every etcd member"},
		{3, 3, true, ""}, // destroy tears everything down
	}
	for _, tt := range tests {
		_, err := EtcdMember{}.CheckPlan(resources.PlanReview{Changes: deletes(tt.removed), Recorded: members(tt.running), Destroy: tt.destroy})
		switch {
		case tt.refuse == "" && err != nil:
			t.Errorf("%d of %d: refused: %v", tt.removed, tt.running, err)
		case tt.refuse != "" && (err == nil || !strings.Contains(err.Error(), tt.refuse)):
			t.Errorf("%d of %d: err %v, want %q", tt.removed, tt.running, err, tt.refuse)
		}
	}
}

func TestComponentsPerRole(t *testing.T) {
	c := &resources.Cluster{Name: "c", KubernetesVersion: "1.31.4", ConfigDir: "/etc/kubernetes",
		Network:   resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16"},
		ExtraArgs: map[string]map[string]string{"kube-apiserver": {"v": "2", "secure-port": "7443"}, "containerd": {"log-level": "debug"}},
		Nodes: []resources.Node{
			{Name: "lb", Address: "10.0.0.10", Roles: []string{"loadbalance"}},
			{Name: "m0", Address: "10.0.0.11", Roles: []string{"master", "etcd"}},
			{Name: "w0", Address: "10.0.0.21", Roles: []string{"worker"}},
		}}
	ds, err := componentServices(c)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	byAddr := map[string]resources.Desired{}
	for _, d := range ds {
		got = append(got, d.Addr)
		byAddr[d.Addr] = d
	}
	want := `service.kube-lb["lb"] service.kube-apiserver["m0"] service.kube-controller-manager["m0"] service.kube-scheduler["m0"] ` +
		`service.containerd["m0"] service.kubelet["m0"] service.kube-proxy["m0"] service.flanneld["m0"] ` +
		`service.containerd["w0"] service.kubelet["w0"] service.kube-proxy["w0"] service.flanneld["w0"]`
	if strings.Join(got, " ") != want {
		t.Errorf("services:\n got %v\nwant %v", got, want)
	}
	// The master registers tainted, the worker not; a cluster that
	// schedules on its masters registers them untainted.
	taint := "--register-with-taints=" + resources.ControlPlaneTaint + "=:NoSchedule"
	for node, tainted := range map[string]bool{"m0": true, "w0": false} {
		if unit := resources.AttrString(byAddr[resources.ServiceAddr(resources.CompKubelet, node)].Attrs[svcUnit]); strings.Contains(unit, taint) != tainted {
			t.Errorf("%s's kubelet registers tainted: %t, want %t:\n%s", node, !tainted, tainted, unit)
		}
	}
	// A master's kubelet talks to its own apiserver and rolls with it; a
	// worker's goes through the load balancer, in the last stage.
	if deps := byAddr[`service.kubelet["m0"]`].DependsOn; strings.Join(deps, " ") != `host.m0 service.containerd["m0"] service.kube-apiserver["m0"]` {
		t.Errorf("m0's kubelet waits for %v, want its host, containerd and its own apiserver", deps)
	}
	for addr, group := range map[string]string{`service.kubelet["m0"]`: "control-plane", `service.kube-proxy["m0"]`: "control-plane",
		`service.flanneld["m0"]`: "nodes", `service.kubelet["w0"]`: "nodes"} {
		if r := byAddr[addr].Roll; r == nil || r.Group != group {
			t.Errorf("%s rolls in %+v, want the %s group", addr, r, group)
		}
	}
	for node, server := range map[string]string{"m0": "https://127.0.0.1:6443", "w0": c.APIServerURL()} {
		for _, comp := range []string{resources.CompKubelet, resources.CompKubeProxy} {
			for _, f := range parseService(byAddr[resources.ServiceAddr(comp, node)].Attrs).Files {
				if f.Kubeconfig != nil && f.Kubeconfig["server"] != server {
					t.Errorf("%s's %s talks to %v, want %s", node, comp, f.Kubeconfig["server"], server)
				}
			}
		}
	}
	// A cgroup root per Node: the kubelet's flag, the script that makes
	// the root before it starts, and its removal with the kubelet.
	c.Runtime.CgroupRootPerNode = true
	s := parseService(Kubelet(c, c.Nodes[2]).desired(c, c.Nodes[2]).Attrs)
	if !strings.Contains(s.Unit, "--cgroup-root=/eggo-%m") || !strings.Contains(s.Unit, "ExecStartPre=/bin/sh /etc/kubernetes/kubelet/cgroup-root.sh /eggo-%m") ||
		s.Files[len(s.Files)-1].Path != "/etc/kubernetes/kubelet/cgroup-root.sh" {
		t.Errorf("w0's kubelet with a cgroup root per node:\n%s\n%v", s.Unit, s.Files)
	}
	if cleanup := containerdSpec(c).Cleanup; !strings.Contains(cleanup, "root=eggo-$(cat /etc/machine-id)") {
		t.Errorf("containerd's cleanup leaves the kubelet's cgroup root:\n%s", cleanup)
	}
	c.Runtime.CgroupRootPerNode = false
	if unit := resources.AttrString(byAddr[`service.kubelet["w0"]`].Attrs[svcUnit]); strings.Contains(unit, "cgroup-root") {
		t.Errorf("the kubelet has a cgroup root of its own unasked:\n%s", unit)
	}
	c.ScheduleOnMasters = true
	if unit := resources.AttrString(Kubelet(c, c.Nodes[1]).desired(c, c.Nodes[1]).Attrs[svcUnit]); strings.Contains(unit, "register-with-taints") {
		t.Errorf("with schedule_on_masters, m0's kubelet still registers tainted:\n%s", unit)
	}
	c.ScheduleOnMasters = false
	unit := resources.AttrString(byAddr[`service.kube-apiserver["m0"]`].Attrs[svcUnit])
	if !strings.Contains(unit, "--v=2") || !strings.Contains(unit, "--secure-port=7443") || strings.Contains(unit, "--secure-port=6443") {
		t.Errorf("extra_args not applied to the apiserver unit:\n%s", unit)
	}
	if unit := resources.AttrString(byAddr[`service.containerd["w0"]`].Attrs[svcUnit]); !strings.Contains(unit, "--config=/etc/kubernetes/containerd/config.toml \\\n  --log-level=debug") {
		t.Errorf("containerd unit lacks its config and extra_args:\n%s", unit)
	}
	if deps := byAddr[`service.kubelet["w0"]`].DependsOn; strings.Join(deps, " ") != `host.w0 service.containerd["w0"] service.kube-lb["lb"]` {
		t.Errorf("kubelet waits for %v, want its host, containerd and the load balancer", deps)
	}
	if deps := byAddr[`service.flanneld["w0"]`].DependsOn; strings.Join(deps, " ") != `addon.flannel host.w0 k8s_node.w0 service.kubelet["w0"]` {
		t.Errorf("flanneld waits for %v, want its RBAC, host, Node (its podCIDR) and kubelet", deps)
	}
	cni := parseService(byAddr[`service.containerd["w0"]`].Attrs).Files[1]
	if cni.Path != FlannelCNIConfigPath || cni.Content.(string) != flannelCNIConfig {
		t.Errorf("CNI config %s: %v", cni.Path, cni.Content)
	}
	for _, d := range ds {
		for _, f := range parseService(d.Attrs).Files {
			if r, ok := f.Content.(resources.Ref); ok && r.Attr == "key" && f.Mode != "0600" {
				t.Errorf("%s: key file %s has mode %s", d.Addr, f.Path, f.Mode)
			}
		}
	}
}
