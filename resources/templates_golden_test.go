package resources

import (
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
)

// updateTemplateGolden rewrites resources/templates/testdata from what the
// code renders. The golden files were captured from the fmt.Sprintf
// renderers before the manifest and the script became template files; run
// with it only to change the templates' output on purpose.
var updateTemplateGolden = flag.Bool("update-template-golden", false, "rewrite resources/templates/testdata/*.golden")

// checkTemplateGolden compares got with templates/testdata/name.
func checkTemplateGolden(t *testing.T, name, got string, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join("templates", "testdata", name)
	if *updateTemplateGolden {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s: the rendering differs from the golden file (%d bytes, want %d):\n%s", name, len(got), len(want), got)
	}
}

// The CoreDNS manifest renders byte for byte as the golden files say.
func TestCoreDNSManifestGolden(t *testing.T) {
	for name, s := range map[string]coreDNSSettings{
		"coredns-upstream.yaml.golden":    {Image: CoreDNSImage, Replicas: 2, DNSIP: "10.96.0.10", DNSDomain: "corp.local", Upstream: []string{"/etc/resolv.conf"}},
		"coredns-no-upstream.yaml.golden": {Image: CoreDNSImage, Replicas: 0, DNSIP: "10.96.0.10", DNSDomain: "cluster.local"},
		"coredns-ipv6.yaml.golden":        {Image: "example.org/coredns:v9", Replicas: 3, DNSIP: "fd00:96::a", DNSDomain: "k8s.example", Upstream: []string{"1.1.1.1", "2606:4700:4700::1111"}},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := renderCoreDNS(s)
			checkTemplateGolden(t, name, got, err)
		})
	}
}

// The pod routes script renders byte for byte as the golden files say.
func TestPodRoutesScriptGolden(t *testing.T) {
	v6 := podCluster("fd00:10:244::/56", nil, "w0", "w1")
	v6.Nodes[1].Address = "fd00::2"
	v6.Nodes[2].Address = "w1.nodes.example"
	v6.Nodes = append(v6.Nodes, Node{Name: "w'2", Address: "fd00::4", Roles: []string{"worker"}})
	for name, tc := range map[string]struct {
		c    *Cluster
		node string
	}{
		"pod-routes-ipv4.sh.golden":   {podCluster("10.244.0.0/16", map[string]string{"w0": "10.244.0.0/24", "w1": "10.244.3.0/24", "w2": "10.244.1.0/24"}, "w0", "w1", "w2"), "w1"},
		"pod-routes-alone.sh.golden":  {podCluster("10.244.0.0/22", nil, "w0"), "w0"},
		"pod-routes-ipv6.sh.golden":   {v6, "w0"},
		"pod-routes-ipv6-2.sh.golden": {v6, "w'2"},
	} {
		t.Run(name, func(t *testing.T) {
			subnets, err := tc.c.PodSubnets()
			if err != nil {
				t.Fatal(err)
			}
			n, _ := tc.c.NodeNamed(tc.node)
			cidr := netip.MustParsePrefix(tc.c.Network.PodCIDR).Masked()
			got, err := podRoutesScript(tc.c, n, cidr, familyOf(cidr), subnets)
			checkTemplateGolden(t, name, got, err)
		})
	}
}
