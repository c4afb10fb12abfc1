package kube

import (
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// flannel's network configuration always names the VXLAN backend: without
// one flanneld picks udp, which the bundle's build leaves out.
func TestFlannelNetConf(t *testing.T) {
	for cidr, want := range map[string]map[string]any{
		"10.244.0.0/16":    {"Network": "10.244.0.0/16", "Backend": map[string]any{"Type": "vxlan"}},
		"fd00:10:244::/56": {"EnableIPv4": false, "EnableIPv6": true, "IPv6Network": "fd00:10:244::/56", "Backend": map[string]any{"Type": "vxlan"}},
	} {
		text, err := flannelNetConf(netip.MustParsePrefix(cidr))
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatalf("%s: %v\n%s", cidr, err, text)
		}
		if !resources.Equal(got, want) {
			t.Errorf("%s: net-conf.json = %v, want %v", cidr, got, want)
		}
	}
}

// The CNI configuration is flannel's plugin (which speaks CNI up to 0.4.0)
// then portmap, and names no node or subnet.
func TestFlannelCNIConfig(t *testing.T) {
	var conf struct {
		CNIVersion string `json:"cniVersion"`
		Plugins    []struct {
			Type     string         `json:"type"`
			Delegate map[string]any `json:"delegate"`
		} `json:"plugins"`
	}
	if err := json.Unmarshal([]byte(flannelCNIConfig), &conf); err != nil {
		t.Fatal(err)
	}
	if conf.CNIVersion != "0.3.1" || len(conf.Plugins) != 2 || conf.Plugins[0].Type != "flannel" || conf.Plugins[1].Type != "portmap" {
		t.Errorf("CNI config: %+v", conf)
	}
	if conf.Plugins[0].Delegate["hairpinMode"] != true {
		t.Errorf("the bridge flannel delegates to has no hairpin mode (a pod reaching itself through a Service): %v", conf.Plugins[0].Delegate)
	}
}

// flanneld's unit names its own node only: its name for the subnet
// manager, its address for VXLAN (when it is an address; a name leaves
// the interface to flanneld), and waits for what it reads from the API.
func TestFlanneldUnit(t *testing.T) {
	c := podCluster("10.244.0.0/16", nil, "w0", "w1")
	c.Nodes[2].Address = "w1.nodes.example"
	for _, tc := range []struct {
		node, iface string
	}{{"w0", " \\\n  --iface=10.0.0.2"}, {"w1", ""}} {
		n, _ := c.NodeNamed(tc.node)
		spec, err := flanneld(c, n)
		if err != nil {
			t.Fatal(err)
		}
		d := spec.desired(c, n)
		unit := spec.Unit
		for _, want := range []string{"Type=notify\n", "Environment=NODE_NAME=" + tc.node + "\n", "--kube-subnet-mgr=true", "--ip-masq=true",
			"--kubeconfig-file=/etc/kubernetes/flanneld/kubeconfig", "--net-config-path=/etc/kubernetes/flanneld/net-conf.json",
			"ExecStartPre=/bin/sh /etc/kubernetes/flanneld/forwarding.sh\n"} {
			if !strings.Contains(unit, want) {
				t.Errorf("%s: unit lacks %q:\n%s", tc.node, want, unit)
			}
		}
		if got := strings.Contains(unit, "--iface="); got != (tc.iface != "") || (tc.iface != "" && !strings.Contains(unit, tc.iface)) {
			t.Errorf("%s (address %s): --iface in the unit: %t, want %q:\n%s", tc.node, n.Address, got, tc.iface, unit)
		}
		want := "addon.flannel host." + tc.node + " k8s_node." + tc.node + ` service.kubelet["` + tc.node + `"]`
		if got := strings.Join(d.DependsOn, " "); got != want {
			t.Errorf("%s: flanneld waits for %s, want %s", tc.node, got, want)
		}
	}
}

// Without a master eggo manages no Node object and no RBAC: flanneld
// waits only for its kubelet (the API's owner allocates the podCIDRs).
func TestFlanneldWithoutMasters(t *testing.T) {
	c := podCluster("10.244.0.0/16", nil, "w0")
	c.Nodes = c.Nodes[1:]
	n, _ := c.NodeNamed("w0")
	spec, err := flanneld(c, n)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(spec.desired(c, n).DependsOn, " "); got != `host.w0 service.kubelet["w0"]` {
		t.Errorf("flanneld without masters waits for %s", got)
	}
}
