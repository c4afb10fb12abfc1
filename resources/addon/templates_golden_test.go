package addon

import (
	"path/filepath"
	"testing"

	"github.com/eggo-project/eggo/resources/resourcestest"
)

// The golden files were captured from the fmt.Sprintf renderers before the
// manifest and the script became template files (resources/templates).

// The CoreDNS manifest renders byte for byte as the golden files say.
func TestCoreDNSManifestGolden(t *testing.T) {
	for name, s := range map[string]coreDNSSettings{
		"coredns-upstream.yaml.golden":    {Image: "registry.k8s.io/coredns/coredns:v1.11.3", Replicas: 2, DNSIP: "10.96.0.10", DNSDomain: "corp.local", Upstream: []string{"/etc/resolv.conf"}},
		"coredns-no-upstream.yaml.golden": {Image: "registry.k8s.io/coredns/coredns:v1.11.3", Replicas: 0, DNSIP: "10.96.0.10", DNSDomain: "cluster.local"},
		"coredns-ipv6.yaml.golden":        {Image: "example.org/coredns:v9", Replicas: 3, DNSIP: "fd00:96::a", DNSDomain: "k8s.example", Upstream: []string{"1.1.1.1", "2606:4700:4700::1111"}},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := renderCoreDNS(s)
			resourcestest.CheckGolden(t, filepath.Join("..", "templates", "testdata", name), got, err)
		})
	}
}
