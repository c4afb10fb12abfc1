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
			got, err := PodSubnets(podCluster(tt.cidr, tt.recorded, tt.workers...))
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
	_, err := PodSubnets(c)
	if err == nil || !strings.Contains(err.Error(), "room for 2 node subnets") || !strings.Contains(err.Error(), "no subnet for w2") {
		t.Errorf("full pod_cidr: %v", err)
	}
	c = podCluster("10.244.0.0/16", nil, "w0")
	if all, err := PodSubnets(c); err != nil || all["w0"] != "10.244.0.0/24" || len(all) != 1 {
		t.Errorf("PodSubnets = %v, %v: want w0's subnet and none for the master", all, err)
	}
	for _, cidr := range []string{"fd00::/121", "10.1.2.0/24", "10.1.2.0/23x"} {
		c = podCluster(cidr, nil, "w0")
		if _, err := PodSubnets(c); err == nil || !strings.Contains(err.Error(), "pod_cidr") {
			t.Errorf("pod_cidr %s: %v", cidr, err)
		}
	}
	c = podCluster("10.1.2.0/24", nil)
	if ds, err := componentServices(c); err != nil || len(ds) != 3 {
		t.Errorf("without workers pod_cidr is not split: %d services, %v", len(ds), err)
	}
}

func TestRecallPodSubnets(t *testing.T) {
	objs := []resources.Object{
		{Addr: resources.ServiceAddr(resources.CompContainerd, "w0"), Node: "w0", Attrs: resources.Attrs{svcComponent: resources.CompContainerd, AttrPodSubnet: "10.244.3.0/24"}},
		{Addr: resources.ServiceAddr(resources.CompContainerd, "w1"), Node: "w1", Pending: true, Attrs: resources.Attrs{svcComponent: resources.CompContainerd, AttrPodSubnet: "10.244.1.0/24"}},
		{Addr: resources.ServiceAddr(resources.CompContainerd, "w2"), Node: "w2", Attrs: resources.Attrs{svcComponent: resources.CompContainerd}}, // written by an older eggo
		{Addr: resources.ServiceAddr(resources.CompKubelet, "w3"), Node: "w3", Attrs: resources.Attrs{svcComponent: resources.CompKubelet, AttrPodSubnet: "10.244.9.0/24"}},
	}
	var asked []string
	c := &resources.Cluster{}
	RecallPodSubnets(c, func(kind string) []resources.Object { asked = append(asked, kind); return objs })
	want := map[string]string{"w0": "10.244.3.0/24", "w1": "10.244.1.0/24"}
	if !reflect.DeepEqual(c.RecordedPodSubnets, want) || !reflect.DeepEqual(asked, []string{"service"}) {
		t.Errorf("recalled %v (asked for %v), want %v", c.RecordedPodSubnets, asked, want)
	}
}

// The expansion hands the allocation to containerd (CNI config and the
// recorded attribute) and to every other worker's routes.
func TestPodSubnetsInComponents(t *testing.T) {
	c := podCluster("10.244.0.0/16", map[string]string{"w1": "10.244.7.0/24"}, "w0", "w1", "w2")
	c.KubernetesVersion, c.Network.ServiceCIDR = "1.31.4", "10.32.0.0/16"
	ds, err := componentServices(c)
	if err != nil {
		t.Fatal(err)
	}
	byAddr := map[string]resources.Desired{}
	for _, d := range ds {
		byAddr[d.Addr] = d
	}
	want := map[string]string{"w0": "10.244.0.0/24", "w1": "10.244.7.0/24", "w2": "10.244.1.0/24"}
	for node, subnet := range want {
		d := byAddr[resources.ServiceAddr(resources.CompContainerd, node)]
		if got := d.Attrs[AttrPodSubnet]; got != subnet {
			t.Errorf("%s records pod_subnet %v, want %s", d.Addr, got, subnet)
		}
		cni := parseService(d.Attrs).Files[1]
		if content := cni.Content.(string); !strings.Contains(content, `"subnet": "`+subnet+`"`) || !strings.Contains(content, `"ipMasq": false`) {
			t.Errorf("%s: CNI config:\n%s", d.Addr, content)
		}
	}
	if _, ok := byAddr[resources.ServiceAddr(resources.CompPodRoutes, "m0")]; ok {
		t.Error("a master got pod routes")
	}
	script := parseService(byAddr[resources.ServiceAddr(resources.CompPodRoutes, "w0")].Attrs).Files[0].Content.(string)
	if !strings.Contains(script, "ROUTES='10.244.7.0/24 10.0.0.3 w1\n10.244.1.0/24 10.0.0.4 w2\n'") || !strings.Contains(script, "SUBNET='10.244.0.0/24'\n") {
		t.Errorf("w0's routes script:\n%s", script)
	}
}
