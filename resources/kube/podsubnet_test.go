package kube

import (
	"reflect"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// podCluster is a master and the named workers, in that order.
func podCluster(cidr string, recorded map[string]string, workers ...string) *resources.Cluster {
	c := &resources.Cluster{Name: "c", ConfigDir: "/etc/kubernetes", Network: resources.Network{PodCIDR: cidr}, RecordedPodSubnets: recorded,
		Nodes: []resources.Node{{Name: "m0", Address: "10.0.0.1", Roles: []string{"master", "etcd"}}}}
	for i, w := range workers {
		c.Nodes = append(c.Nodes, resources.Node{Name: w, Address: "10.0.0." + string(rune('2'+i)), Roles: []string{"worker"}})
	}
	return c
}

func TestPodSubnets(t *testing.T) {
	tests := []struct {
		name     string
		cidr     string
		recorded map[string]string
		workers  []string
		want     map[string]string
	}{
		{
			name:    "fresh cluster: workers only, in declaration order, from the first subnet",
			cidr:    "10.244.0.0/16",
			workers: []string{"w0", "w1", "w2"},
			want:    map[string]string{"w0": "10.244.0.0/24", "w1": "10.244.1.0/24", "w2": "10.244.2.0/24"},
		},
		{
			name:     "a middle worker removed: the others keep their subnets",
			cidr:     "10.244.0.0/16",
			recorded: map[string]string{"w0": "10.244.0.0/24", "w1": "10.244.1.0/24", "w2": "10.244.2.0/24"},
			workers:  []string{"w0", "w2"},
			want:     map[string]string{"w0": "10.244.0.0/24", "w2": "10.244.2.0/24"},
		},
		{
			name:     "workers added: the lowest free subnets, in declaration order",
			cidr:     "10.244.0.0/16",
			recorded: map[string]string{"w0": "10.244.0.0/24", "w2": "10.244.2.0/24"},
			workers:  []string{"w9", "w0", "w2", "w3"},
			want:     map[string]string{"w9": "10.244.1.0/24", "w0": "10.244.0.0/24", "w2": "10.244.2.0/24", "w3": "10.244.3.0/24"},
		},
		{
			name:     "pod_cidr changed: a subnet outside it is reallocated, one inside kept",
			cidr:     "10.245.0.0/16",
			recorded: map[string]string{"w0": "10.244.0.0/24", "w1": "10.245.0.0/24"},
			workers:  []string{"w0", "w1"},
			want:     map[string]string{"w0": "10.245.1.0/24", "w1": "10.245.0.0/24"},
		},
		{
			name:     "a subnet recorded twice: the first worker keeps it",
			cidr:     "10.244.0.0/16",
			recorded: map[string]string{"w0": "10.244.5.0/24", "w1": "10.244.5.0/24"},
			workers:  []string{"w0", "w1"},
			want:     map[string]string{"w0": "10.244.5.0/24", "w1": "10.244.0.0/24"},
		},
		{
			name:     "records of the wrong size, unaligned or unreadable are reallocated",
			cidr:     "10.244.0.0/16",
			recorded: map[string]string{"w0": "10.244.8.0/25", "w1": "10.244.9.7/24", "w2": "junk", "w3": "10.244.7.0/24"},
			workers:  []string{"w0", "w1", "w2", "w3"},
			want:     map[string]string{"w0": "10.244.0.0/24", "w1": "10.244.1.0/24", "w2": "10.244.2.0/24", "w3": "10.244.7.0/24"},
		},
		{
			name:    "IPv6: 256 subnets",
			cidr:    "fd00:10::/48",
			workers: []string{"w0", "w1"},
			want:    map[string]string{"w0": "fd00:10::/56", "w1": "fd00:10:0:100::/56"},
		},
		{
			name:    "pod_cidr given unmasked",
			cidr:    "10.250.3.4/22",
			workers: []string{"w0", "w1"},
			want:    map[string]string{"w0": "10.250.0.0/24", "w1": "10.250.1.0/24"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := workerSubnets(podCluster(tt.cidr, tt.recorded, tt.workers...))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestPodSubnetErrors(t *testing.T) {
	c := podCluster("10.244.0.0/23", nil, "w0", "w1", "w2")
	_, err := workerSubnets(c)
	if err == nil || !strings.Contains(err.Error(), "room for 2 node subnets") || !strings.Contains(err.Error(), "no subnet for w2") {
		t.Errorf("full pod_cidr: %v", err)
	}
	c = podCluster("10.244.0.0/16", nil, "w0")
	if all, err := workerSubnets(c); err != nil || all["w0"] != "10.244.0.0/24" || len(all) != 1 {
		t.Errorf("PodSubnets = %v, %v: want w0's subnet and none for the master", all, err)
	}
	for _, cidr := range []string{"fd00::/121", "10.1.2.0/24", "10.1.2.0/23x"} {
		c = podCluster(cidr, nil, "w0")
		if _, err := workerSubnets(c); err == nil || !strings.Contains(err.Error(), "pod_cidr") {
			t.Errorf("pod_cidr %s: %v", cidr, err)
		}
	}
	c = podCluster("10.1.2.0/24", nil)
	c.Nodes[0].Roles = []string{"etcd"}
	if ds, err := componentServices(c); err != nil || len(ds) != 0 {
		t.Errorf("without Nodes (masters or workers) pod_cidr is not split: %d services, %v", len(ds), err)
	}
}

// workerSubnets is PodSubnets of every worker of c.
func workerSubnets(c *resources.Cluster) (map[string]string, error) {
	return PodSubnets(c, c.NodesWithRole("worker"))
}

// A state written before flannel kept each subnet on the worker's
// containerd service; one written since, on its k8s_node, which wins.
func TestRecallPodSubnets(t *testing.T) {
	services := []resources.Object{
		{Addr: resources.ServiceAddr(resources.CompContainerd, "w0"), Node: "w0", Attrs: resources.Attrs{svcComponent: resources.CompContainerd, AttrPodSubnet: "10.244.3.0/24"}},
		{Addr: resources.ServiceAddr(resources.CompContainerd, "w1"), Node: "w1", Pending: true, Attrs: resources.Attrs{svcComponent: resources.CompContainerd, AttrPodSubnet: "10.244.1.0/24"}},
		{Addr: resources.ServiceAddr(resources.CompContainerd, "w2"), Node: "w2", Attrs: resources.Attrs{svcComponent: resources.CompContainerd}}, // written by an older eggo
		{Addr: resources.ServiceAddr(resources.CompKubelet, "w3"), Node: "w3", Attrs: resources.Attrs{svcComponent: resources.CompKubelet, AttrPodSubnet: "10.244.9.0/24"}},
		{Addr: resources.ServiceAddr(resources.CompContainerd, "w4"), Node: "w4", Attrs: resources.Attrs{svcComponent: resources.CompContainerd, AttrPodSubnet: "10.244.4.0/24"}},
	}
	nodes := []resources.Object{
		{Addr: K8sNodeAddr("w4"), Node: "w4", Attrs: resources.Attrs{AttrPodSubnet: "10.244.5.0/24"}},
		{Addr: K8sNodeAddr("w5"), Node: "w5", Attrs: resources.Attrs{AttrPodSubnet: "10.244.6.0/24"}},
		{Addr: K8sNodeAddr("w6"), Node: "w6", Attrs: resources.Attrs{AttrPodSubnet: ""}},
	}
	var asked []string
	c := &resources.Cluster{}
	RecallPodSubnets(c, func(kind string) []resources.Object {
		asked = append(asked, kind)
		if kind == "k8s_node" {
			return nodes
		}
		return services
	})
	want := map[string]string{"w0": "10.244.3.0/24", "w1": "10.244.1.0/24", "w4": "10.244.5.0/24", "w5": "10.244.6.0/24"}
	if !reflect.DeepEqual(c.RecordedPodSubnets, want) || !reflect.DeepEqual(asked, []string{"service", "k8s_node"}) {
		t.Errorf("recalled %v (asked for %v), want %v", c.RecordedPodSubnets, asked, want)
	}
}

// The allocation goes to each worker's k8s_node (the Node's podCIDR);
// no service names a subnet or another node, so every worker's flannel and
// CNI configuration is the same but for its own name and address.
func TestPodSubnetsOnNodes(t *testing.T) {
	c := podCluster("10.244.0.0/16", map[string]string{"w1": "10.244.7.0/24"}, "w0", "w1", "w2")
	c.KubernetesVersion, c.Network.ServiceCIDR = "1.31.4", "10.32.0.0/16"
	nodes, err := K8sNode{}.Expand(c)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"m0": "10.244.0.0/24", "w0": "10.244.1.0/24", "w1": "10.244.7.0/24", "w2": "10.244.2.0/24"}
	for _, d := range nodes {
		if got := d.Attrs[AttrPodSubnet]; got != want[d.Node] {
			t.Errorf("%s records pod_subnet %v, want %s", d.Addr, got, want[d.Node])
		}
	}
	if len(nodes) != 4 {
		t.Errorf("%d k8s_node, want one per master and worker", len(nodes))
	}
	ds, err := componentServices(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		s := parseService(d.Attrs)
		text := s.Unit
		for _, f := range s.Files {
			if content, ok := f.Content.(string); ok {
				text += content
			}
		}
		for node, subnet := range want {
			if strings.Contains(text, subnet) || (node != d.Node && strings.Contains(text, node)) {
				t.Errorf("%s names %s or its subnet %s:\n%s", d.Addr, node, subnet, text)
			}
		}
		if s.Component == resources.CompContainerd && !strings.Contains(text, `"type": "flannel"`) {
			t.Errorf("%s: the CNI network is not flannel's:\n%s", d.Addr, text)
		}
	}
}
