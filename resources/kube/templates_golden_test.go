package kube

import (
	"net/netip"
	"path/filepath"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

// The golden files were captured from the fmt.Sprintf renderers before the
// manifest and the script became template files (resources/templates).

// The pod routes script renders byte for byte as the golden files say.
func TestPodRoutesScriptGolden(t *testing.T) {
	v6 := podCluster("fd00:10:244::/56", nil, "w0", "w1")
	v6.Nodes[1].Address = "fd00::2"
	v6.Nodes[2].Address = "w1.nodes.example"
	v6.Nodes = append(v6.Nodes, resources.Node{Name: "w'2", Address: "fd00::4", Roles: []string{"worker"}})
	for name, tc := range map[string]struct {
		c    *resources.Cluster
		node string
	}{
		"pod-routes-ipv4.sh.golden":   {podCluster("10.244.0.0/16", map[string]string{"w0": "10.244.0.0/24", "w1": "10.244.3.0/24", "w2": "10.244.1.0/24"}, "w0", "w1", "w2"), "w1"},
		"pod-routes-alone.sh.golden":  {podCluster("10.244.0.0/22", nil, "w0"), "w0"},
		"pod-routes-ipv6.sh.golden":   {v6, "w0"},
		"pod-routes-ipv6-2.sh.golden": {v6, "w'2"},
	} {
		t.Run(name, func(t *testing.T) {
			subnets, err := PodSubnets(tc.c)
			if err != nil {
				t.Fatal(err)
			}
			n, _ := tc.c.NodeNamed(tc.node)
			cidr := netip.MustParsePrefix(tc.c.Network.PodCIDR).Masked()
			got, err := podRoutesScript(tc.c, n, cidr, familyOf(cidr), subnets)
			resourcestest.CheckGolden(t, filepath.Join("..", "templates", "testdata", name), got, err)
		})
	}
}
