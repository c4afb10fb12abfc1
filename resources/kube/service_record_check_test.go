package kube

import (
	"maps"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

// recordsOf are the records today's eggo writes for every service and
// etcd member of c (the write-ahead one is the same), by address.
func recordsOf(t *testing.T, c *resources.Cluster) map[string]resources.Object {
	t.Helper()
	ds, err := componentServices(c)
	if err != nil {
		t.Fatal(err)
	}
	members, err := EtcdMember{}.Expand(c)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]resources.Object{}
	for _, d := range append(ds, members...) {
		attrs := resources.Substitute(d.Attrs, func(resources.Ref) any { return "input" }).(resources.Attrs)
		a := resourcestest.ViaState(t, recordedService(attrs, nil))
		out[d.Addr] = resources.Object{Addr: d.Addr, Kind: d.Kind, Node: d.Node, Attrs: a}
	}
	return out
}

// checkerOf is the record check of o's kind.
func checkerOf(o resources.Object) resources.RecordChecker {
	if o.Kind == "etcd_member" {
		return EtcdMember{}
	}
	return Service{}
}

// Every record today's eggo writes passes its check, whatever the
// cluster's shape (config_dir, implementations, a cgroup root per node,
// an IPv6 pod network), and a delete runs the cleanup it records.
func TestServiceRecordsPassTheirCheck(t *testing.T) {
	nodes := []resources.Node{
		{Name: "lb", Address: "10.0.0.10", Roles: []string{"loadbalance"}},
		{Name: "m0", Address: "10.0.0.11", Roles: []string{"master", "etcd"}},
		{Name: "w0", Address: "10.0.0.21", Roles: []string{"worker"}},
	}
	base := resources.Cluster{Name: "c", KubernetesVersion: "1.31.4", ConfigDir: "/etc/kubernetes",
		Network: resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16"}, Nodes: nodes}
	shapes := map[string]func(c *resources.Cluster){
		"default":    func(*resources.Cluster) {},
		"config_dir": func(c *resources.Cluster) { c.ConfigDir = "/opt/eggo/k8s" },
		"static pods": func(c *resources.Cluster) {
			c.Implementation, c.EtcdImplementation = resources.ImplementationPod, resources.ImplementationPod
		},
		"cgroup root":   func(c *resources.Cluster) { c.Runtime.CgroupRootPerNode = true },
		"IPv6 pod CIDR": func(c *resources.Cluster) { c.Network.PodCIDR = "fd00:10:244::/56" },
	}
	for name, shape := range shapes {
		t.Run(name, func(t *testing.T) {
			c := base
			shape(&c)
			seen := map[string]bool{}
			for addr, o := range recordsOf(t, &c) {
				seen[resources.AttrString(o.Attrs[svcComponent])] = true
				if err := checkerOf(o).CheckRecord(o); err != nil {
					t.Errorf("%s: %v", addr, err)
				}
				run, err := cleanupToRun(o.Attrs, o.Node)
				if want := resources.AttrString(o.Attrs[svcCleanup]); err != nil || run != want {
					t.Errorf("%s: a delete runs %q (%v), want the cleanup it records, %q", addr, run, err, want)
				}
			}
			for _, comp := range resources.NodeComponents {
				if !seen[comp] && comp != resources.CompPodRoutes {
					t.Errorf("no record of %s checked", comp)
				}
			}
		})
	}
}

// A service's record whose delete would remove, empty, stop or run
// anything but what eggo made is refused, naming the attribute: shell
// text other than eggo's own, a file or unit elsewhere than eggo puts the
// component's, data that is no component's.
func TestServiceRecordCheck(t *testing.T) {
	c := &resources.Cluster{Name: "c", KubernetesVersion: "1.31.4", ConfigDir: "/etc/kubernetes",
		Network: resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16"},
		Nodes:   []resources.Node{{Name: "m0", Address: "10.0.0.11", Roles: []string{"master", "etcd"}}}}
	records := recordsOf(t, c)
	c.Implementation = resources.ImplementationPod
	podRecords := recordsOf(t, c)
	kubelet := records[resources.ServiceAddr(resources.CompKubelet, "m0")]
	member := records[EtcdMemberAddr("m0")]
	scheduler := podRecords[resources.ServiceAddr(resources.CompScheduler, "m0")]
	withFile := func(p string) map[string]any {
		m := maps.Clone(kubelet.Attrs[svcFileModes].(map[string]any))
		m[p] = "0600"
		return m
	}
	for _, tc := range []struct {
		name   string
		record resources.Object
		attr   string
		value  any
		want   string
	}{
		{"cleanup rm -rf /", kubelet, svcCleanup, "rm -rf / #", "cleanup is not a cleanup eggo makes for the kubelet service"},
		{"cleanup curl | sh", kubelet, svcCleanup, "curl evil | sh", "cleanup is not a cleanup eggo makes for the kubelet service"},
		{"cleanup after eggo's", kubelet, svcCleanup, kubeletCleanup + "\ncurl evil | sh", "cleanup is not a cleanup eggo makes"},
		{"another component's cleanup", kubelet, svcCleanup, containerdCleanup(false), "cleanup is not a cleanup eggo makes for the kubelet service"},
		{"member's cleanup elsewhere", member, svcCleanup, "rm -f '/etc/shadow'", "cleanup is not a cleanup eggo makes for the etcd service"},
		{"member's cleanup of another config_dir", member, svcCleanup, etcdCleanup("/srv"), "cleanup is not a cleanup eggo makes"},
		{"cleanup not text", kubelet, svcCleanup, []any{"rm"}, "cleanup is not a string"},
		{"post_start rm -rf /", kubelet, svcPostStart, "rm -rf / #", "post_start is not one eggo makes for the kubelet service"},
		{"post_start curl | sh", kubelet, svcPostStart, "curl evil | sh", "post_start is not one eggo makes for the kubelet service"},
		{"containerd's post_start on another", kubelet, svcPostStart, containerdPostStart, "post_start is not one eggo makes for the kubelet service"},
		{"file /etc/shadow", kubelet, svcFileModes, withFile("/etc/shadow"),
			"file_modes: /etc/shadow is not where eggo writes the files of the kubelet service (CONFIG_DIR/kubelet/NAME)"},
		{"file authorized_keys", kubelet, svcFileModes, withFile("/root/.ssh/authorized_keys"),
			"file_modes: /root/.ssh/authorized_keys is not where eggo writes the files of the kubelet service"},
		{"file of another component", kubelet, svcFileModes, withFile("/etc/kubernetes/etcd/server.key"), "is not where eggo writes the files of the kubelet service"},
		{"file under another config_dir", kubelet, svcFileModes, withFile("/root/kubelet/x"),
			"file_modes: /root/kubelet/x is not under the config_dir of /etc/kubernetes/kubelet/"},
		{"config_dir /", kubelet, svcFileModes, map[string]any{"/kubelet/x": "0600"}, "file_modes: /kubelet/x would put config_dir at /"},
		{"older record's file /etc/shadow", kubelet, svcFiles, []any{map[string]any{"path": "/etc/shadow", "mode": "0600"}},
			"files[0].path: /etc/shadow is not where eggo writes the files of the kubelet service"},
		{"file relative", kubelet, svcFileModes, map[string]any{"etc/passwd": "0644"}, `file_modes: "etc/passwd" is not an absolute, clean path`},
		{"unit a path", kubelet, svcUnitName, "../../etc/passwd", `unit_name "../../etc/passwd" is not "kubelet.service", the unit eggo writes for the kubelet service`},
		{"another unit", kubelet, svcUnitName, "sshd.service", `unit_name "sshd.service" is not "kubelet.service"`},
		{"unknown component", kubelet, svcComponent, "sshd", `component "sshd" is not one eggo runs as this kind`},
		{"member of another component", member, svcComponent, resources.CompKubelet, `component "kubelet" is not one eggo runs as this kind (etcd)`},
		{"pod's manifests elsewhere", scheduler, svcStaticPod, map[string]any{"manifest_dir": "/etc/systemd/system"},
			"static_pod.manifest_dir: /etc/systemd/system is not CONFIG_DIR/manifests"},
		{"pod's manifests of another config_dir", scheduler, svcStaticPod, map[string]any{"manifest_dir": "/srv/manifests"},
			"static_pod.manifest_dir: /srv/manifests is not under the config_dir of"},
		{"pod's manifests relative", scheduler, svcStaticPod, map[string]any{"manifest_dir": "manifests"}, `static_pod.manifest_dir: "manifests" is not an absolute, clean path`},
		{"data emptied elsewhere", kubelet, svcOwnedData, []any{"/home"}, "owned_data[0]: /home is not a component's data directory"},
		{"created dir relative", kubelet, svcCreatedDirs, []any{"../x"}, `created_dirs[0]: "../x" is not an absolute, clean path`},
		{"created dirs null", kubelet, svcCreatedDirs, nil, "created_dirs is null, not a list"},
		{"data dir with ..", kubelet, svcDataDirs, []any{"/var/lib/../../etc"}, "data_dirs[0]: \"/var/lib/../../etc\" is not an absolute, clean path"},
		{"address a list", kubelet, svcAddress, []any{"10.0.0.1"}, "address is a list, not a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.record
			o.Attrs = maps.Clone(o.Attrs)
			o.Attrs[tc.attr] = tc.value
			if err := checkerOf(o).CheckRecord(o); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// oldRecord is a service record as eggo at 4869f8e wrote it (git show
// 4869f8e:resources/kube/service_host.go, recordedService): the desired
// attributes, health included, with files as [{path, mode}] and their
// digests; no file_modes, no static pods.
func oldRecord(component string, files []string, cleanup, postStart string) resources.Attrs {
	list := make([]any, len(files))
	digests := map[string]any{}
	for i, p := range files {
		list[i] = map[string]any{"path": p, "mode": "0600"}
		digests[p] = strings.Repeat("0", 64)
	}
	return resources.Attrs{
		svcComponent: component, svcUnitName: component + ".service", svcUnit: "[Service]\nExecStart=/usr/local/bin/" + component + "\n",
		svcFiles: list, svcDigests: digests, svcDataDirs: []any{}, svcPostStart: postStart, svcHealth: "true", svcHealthTimeout: "3m0s",
		svcCleanup: cleanup, svcVersion: "1.31.4", svcAddress: "10.0.0.21",
		svcConnection:  map[string]any{"type": "ssh", "user": "root", "port": float64(22)},
		svcCreatedDirs: []any{"/etc/kubernetes"}, svcOwnedData: []any{},
	}
}

// Records as the eggo at 4869f8e wrote them (engine/e2e's old-eggo
// testbed deploys with it, then today's eggo takes the cluster over) pass
// their check, and a delete runs today's cleanup for each: the texts are
// 4869f8e's, as its generators made them (git show
// 4869f8e:resources/kube/worker.go, podnet.go, etcd_member.go).
func TestOldEggoRecordsPass(t *testing.T) {
	const (
		containerd4869 = "shims=$(pgrep -d, -f containerd-shim-runc-v2)\nif [ -n \"$shims\" ]; then pkill -9 -P \"$shims\"; fi\npkill -9 -f containerd-shim-runc-v2\nsleep 1\nawk '{print $2}' /proc/mounts | grep -E '^/run/containerd/|^/var/lib/containerd/|^/run/netns/cni-' | sort -r | xargs -r -n1 umount -l 2>/dev/null\nfor ns in $(ip netns list 2>/dev/null | awk '/^cni-/{print $1}'); do ip netns delete \"$ns\"; done\nip link delete cni0 2>/dev/null\nrm -rf /run/containerd\ntrue"
		postStart4869  = "for f in /var/lib/eggo/images/*.tar; do\n  [ -f \"$f\" ] || continue\n  ctr -n k8s.io images import \"$f\" >/dev/null || { echo \"importing $f failed\" >&2; exit 1; }\ndone"
		kubelet4869    = "awk '{print $2}' /proc/mounts | grep -E '^/var/lib/kubelet/' | sort -r | xargs -r -n1 umount -l 2>/dev/null\ntrue"
		kubeProxy4869  = "/usr/local/bin/kube-proxy --cleanup >/dev/null 2>&1; true"
		routesV4_4869  = "ip -4 route flush proto 77 2>/dev/null\niptables -t nat -D POSTROUTING -j EGGO-POD-MASQ 2>/dev/null\niptables -t nat -F EGGO-POD-MASQ 2>/dev/null && iptables -t nat -X EGGO-POD-MASQ\niptables -D FORWARD -j EGGO-POD-FWD 2>/dev/null\niptables -F EGGO-POD-FWD 2>/dev/null && iptables -X EGGO-POD-FWD\nif [ -f /run/eggo-pod-routes/forward.before ]; then cat /run/eggo-pod-routes/forward.before > /proc/sys/net/ipv4/ip_forward; fi\nrm -rf /run/eggo-pod-routes\ntrue"
		routesV6_4869  = "ip -6 route flush proto 77 2>/dev/null\nip6tables -t nat -D POSTROUTING -j EGGO-POD-MASQ 2>/dev/null\nip6tables -t nat -F EGGO-POD-MASQ 2>/dev/null && ip6tables -t nat -X EGGO-POD-MASQ\nip6tables -D FORWARD -j EGGO-POD-FWD 2>/dev/null\nip6tables -F EGGO-POD-FWD 2>/dev/null && ip6tables -X EGGO-POD-FWD\nif [ -f /run/eggo-pod-routes/forward.before ]; then cat /run/eggo-pod-routes/forward.before > /proc/sys/net/ipv6/conf/all/forwarding; fi\nrm -rf /run/eggo-pod-routes\ntrue"
		etcd4869       = "rm -f '/etc/kubernetes/etcd/bootstrap.env'"
	)
	k := func(comp string, names ...string) []string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = "/etc/kubernetes/" + comp + "/" + n
		}
		return out
	}
	containerd := oldRecord(resources.CompContainerd, append(k("containerd", "config.toml"), "/etc/cni/net.d/10-eggo-bridge.conflist"), containerd4869, postStart4869)
	containerd[AttrPodSubnet] = "10.244.1.0/24"
	containerd[svcDataDirs] = []any{"/opt/containerd", "/var/lib/containerd", "/var/lib/cni"}
	containerd[svcOwnedData] = []any{"/var/lib/containerd"}
	for _, tc := range []struct {
		name      string
		kind      resources.RecordChecker
		attrs     resources.Attrs
		runsToday string
	}{
		{"containerd", Service{}, containerd, containerdCleanup(false)},
		{"kubelet", Service{}, oldRecord(resources.CompKubelet, k("kubelet", "ca.crt", "kubelet.crt", "kubelet.key", "kubeconfig", "config.yaml"), kubelet4869, ""), kubeletCleanup},
		{"kube-proxy", Service{}, oldRecord(resources.CompKubeProxy, k("kube-proxy", "kubeconfig", "config.yaml"), kubeProxy4869, ""), kubeProxyCleanup},
		{"routes, IPv4", Service{}, oldRecord(resources.CompPodRoutes, k(resources.CompPodRoutes, "routes.sh"), routesV4_4869, ""), podRoutesCleanup(ipv4Family)},
		{"routes, IPv6", Service{}, oldRecord(resources.CompPodRoutes, k(resources.CompPodRoutes, "routes.sh"), routesV6_4869, ""), podRoutesCleanup(ipv6Family)},
		{"apiserver", Service{}, oldRecord(resources.CompAPIServer, append(k("kube-apiserver", "ca.crt", "apiserver.key", "sa.key"), "/etc/kubernetes/admin.conf"), "", ""), ""},
		{"load balancer", Service{}, oldRecord(resources.CompLoadBalancer, k("kube-lb", "haproxy.cfg"), "", ""), ""},
		{"etcd member", EtcdMember{}, oldRecord(resources.CompEtcd, k("etcd", "ca.crt", "server.crt", "server.key", "peer.crt", "peer.key"), etcd4869, ""), etcd4869},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := resources.Object{Addr: "x", Node: "w0", Attrs: resourcestest.ViaState(t, tc.attrs)}
			if err := tc.kind.CheckRecord(o); err != nil {
				t.Fatalf("4869f8e's record refused: %v", err)
			}
			if run, err := cleanupToRun(o.Attrs, o.Node); err != nil || run != tc.runsToday {
				t.Errorf("a delete runs %q (%v), want today's %q", run, err, tc.runsToday)
			}
		})
	}
	// The kubelets of the ten minutes a cgroup root per node was the
	// kubelet's to remove (0977f09, 5b951c8) remove it as today's eggo does.
	for _, old := range []string{
		"for d in /sys/fs/cgroup/*/'eggo-w0'; do [ -d \"$d\" ] && find \"$d\" -depth -type d -exec rmdir {} + 2>/dev/null; done\n" + kubelet4869,
		"root=eggo-$(cat /etc/machine-id)\nfor d in /sys/fs/cgroup/*/\"$root\"; do [ -d \"$d\" ] && find \"$d\" -depth -type d -exec rmdir {} + 2>/dev/null; done\n" + kubelet4869,
	} {
		a := oldRecord(resources.CompKubelet, k("kubelet", "kubeconfig"), old, "")
		if run, err := cleanupToRun(a, "w0"); err != nil || run != cgroupRootCleanup+kubeletCleanup {
			t.Errorf("an older kubelet's cleanup with its cgroup root: runs %q (%v)", run, err)
		}
	}
}

// A delete runs eggo's cleanup, not the record's text: today's for the
// parameters of the recorded one; and a record whose cleanup is not
// eggo's (a state that was never read through its check) is not deleted
// at all — nothing reaches the host.
func TestDeleteRunsEggosCleanup(t *testing.T) {
	host := resourcestest.NewRecorder("delete-cleanup")
	rc := resources.NewRunContext(nil, nil)
	defer rc.Close()
	old := oldRecord(resources.CompContainerd, []string{"/etc/kubernetes/containerd/config.toml"}, containerdCleanupA1A8225, "")
	old[svcConnection] = map[string]any{"type": "delete-cleanup"}
	if _, err := (Service{}).Delete(t.Context(), rc, resources.Object{Addr: "service.containerd[\"w0\"]", Kind: "service", Node: "w0", Attrs: old}); err != nil {
		t.Fatal(err)
	}
	runs := host.Runs()
	if len(runs) != 1 || !strings.Contains(runs[0].Stdin, containerdCleanup(false)) || strings.Contains(runs[0].Stdin, "cgroup.procs") {
		t.Errorf("the first day's containerd record's delete ran:\n%+v\nwant today's cleanup, not the recorded one", runs)
	}
	crafted := maps.Clone(old)
	crafted[svcCleanup] = "curl evil | sh"
	_, err := (Service{}).Delete(t.Context(), rc, resources.Object{Addr: "service.containerd[\"w0\"]", Kind: "service", Node: "w0", Attrs: crafted})
	if err == nil || !strings.Contains(err.Error(), "cleanup is not a cleanup eggo makes for the containerd service") {
		t.Errorf("a crafted cleanup's delete: %v", err)
	}
	if len(host.Runs()) != 1 {
		t.Errorf("a crafted cleanup's delete reached the host: %+v", host.Runs()[1:])
	}
}

// A Node's record as eggo writes it passes its check; one that would
// drain it through another kubeconfig (a credential plugin is a command
// kubectl runs as root) is refused.
func TestK8sNodeRecordCheck(t *testing.T) {
	c := &resources.Cluster{Name: "c", KubernetesVersion: "1.31.4", ConfigDir: "/opt/k8s",
		Network: resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16"},
		Nodes: []resources.Node{{Name: "m0", Address: "10.0.0.11", Roles: []string{"master", "etcd"}},
			{Name: "w0", Address: "10.0.0.21", Roles: []string{"worker"}}}}
	ds, err := K8sNode{}.Expand(c)
	if err != nil || len(ds) != 2 {
		t.Fatalf("Expand: %v, %d", err, len(ds))
	}
	good := resources.Object{Addr: ds[1].Addr, Kind: "k8s_node", Node: "w0", Attrs: resourcestest.ViaState(t, ds[1].Attrs)}
	if err := (K8sNode{}).CheckRecord(good); err != nil {
		t.Fatalf("eggo's own record: %v", err)
	}
	o := good
	o.Attrs = maps.Clone(good.Attrs)
	via := maps.Clone(o.Attrs[k8sNodeVia].(map[string]any))
	via["kubeconfig"] = "/home/mallory/exec-plugin.yaml"
	o.Attrs[k8sNodeVia] = via
	if err := (K8sNode{}).CheckRecord(o); err == nil || !strings.Contains(err.Error(), "via.kubeconfig: /home/mallory/exec-plugin.yaml is not CONFIG_DIR/admin.conf") {
		t.Errorf("a kubeconfig elsewhere: %v", err)
	}
}
