package templates

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The golden files were captured from the fmt.Sprintf renderers the
// templates replaced (resources' TestCoreDNSManifestGolden and
// TestPodRoutesScriptGolden render the same cases through the resource
// kinds' code).
func checkGolden(t *testing.T, name, got string, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s: the rendering differs from the golden file (%d bytes, want %d):\n%s", name, len(got), len(want), got)
	}
}

func TestCoreDNS(t *testing.T) {
	for name, d := range map[string]CoreDNSData{
		"coredns-upstream.yaml.golden":    {Image: "registry.k8s.io/coredns/coredns:v1.11.3", Replicas: 2, DNSIP: "10.96.0.10", DNSDomain: "corp.local", Upstream: []string{"/etc/resolv.conf"}},
		"coredns-no-upstream.yaml.golden": {Image: "registry.k8s.io/coredns/coredns:v1.11.3", Replicas: 0, DNSIP: "10.96.0.10", DNSDomain: "cluster.local"},
		"coredns-ipv6.yaml.golden":        {Image: "example.org/coredns:v9", Replicas: 3, DNSIP: "fd00:96::a", DNSDomain: "k8s.example", Upstream: []string{"1.1.1.1", "2606:4700:4700::1111"}},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := CoreDNS(d)
			checkGolden(t, name, got, err)
		})
	}
}

func TestPodRoutes(t *testing.T) {
	v4 := PodRoutesData{IP: "ip -4", IPTables: "iptables", Proto: 77, Forward: "/proc/sys/net/ipv4/ip_forward", PodCIDR: "10.244.0.0/16",
		Component: "eggo-pod-routes", Resolve: "ahostsv4", RunDir: "/run/eggo-pod-routes", MasqChain: "EGGO-POD-MASQ", FwdChain: "EGGO-POD-FWD"}
	v6 := v4
	v6.IP, v6.IPTables, v6.Forward, v6.PodCIDR, v6.Resolve = "ip -6", "ip6tables", "/proc/sys/net/ipv6/conf/all/forwarding", "fd00:10:244::/56", "ahostsv6"
	with := func(d PodRoutesData, node, subnet string, routes ...PodRoute) PodRoutesData {
		d.Node, d.Subnet, d.Routes = node, subnet, routes
		return d
	}
	alone := with(v4, "w0", "10.244.0.0/24")
	alone.PodCIDR = "10.244.0.0/22"
	for name, d := range map[string]PodRoutesData{
		"pod-routes-ipv4.sh.golden": with(v4, "w1", "10.244.3.0/24",
			PodRoute{"10.244.0.0/24", "10.0.0.2", "w0"}, PodRoute{"10.244.1.0/24", "10.0.0.4", "w2"}),
		"pod-routes-alone.sh.golden": alone,
		"pod-routes-ipv6.sh.golden": with(v6, "w0", "fd00:10:244::/64",
			PodRoute{"fd00:10:244:1::/64", "w1.nodes.example", "w1"}, PodRoute{"fd00:10:244:2::/64", "fd00::4", "w'2"}),
		"pod-routes-ipv6-2.sh.golden": with(v6, "w'2", "fd00:10:244:2::/64",
			PodRoute{"fd00:10:244::/64", "fd00::2", "w0"}, PodRoute{"fd00:10:244:1::/64", "w1.nodes.example", "w1"}),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := PodRoutes(d)
			checkGolden(t, name, got, err)
		})
	}
}

// The helpers the templates call (shquote is providers/shell.Quote,
// tested there).
func TestHelpers(t *testing.T) {
	if got := indent(2, "a\nb\n"); got != "  a\n  b\n" {
		t.Errorf("indent = %q", got)
	}
	if !strings.HasPrefix(routeTable([]PodRoute{{"s", "g", "n"}}), "s g n\n") {
		t.Error("routeTable")
	}
}
