package templates

import (
	"os"
	"path/filepath"
	"testing"
)

// The golden files were captured from the fmt.Sprintf renderers the
// templates replaced (resources' TestCoreDNSManifestGolden renders the
// same cases through the add-on kind's code).
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

// The helpers the templates call (shquote is providers/shell.Quote,
// tested there).
func TestHelpers(t *testing.T) {
	if got := indent(2, "a\nb\n"); got != "  a\n  b\n" {
		t.Errorf("indent = %q", got)
	}
}
