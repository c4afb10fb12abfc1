package e2e_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/harness/eggotest"
	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/tools/conformance"
)

// management is a one-host management cluster (deployed by the eggo CLI,
// eggo's GitOps controller installed) and the testbed hosts its workload
// clusters go on: what the GitOps run and the Cluster API run share.
type management struct {
	mg      kube
	tb      *nspawntest.Testbed
	addr    map[string]string
	before  map[string]string // each workload host's tree before any cluster
	repo    string
	image   string // eggo's image, imported on the management node
	kubectl string
	// bundlePath is the Jobs' bundle's directory under bundleMount.
	bundlePath string
	// smoke runs the conformance smoke (nil unless asked for:
	// EGGO_E2E_CONFORMANCE_FOCUS); the Jobs' bundle then carries its images.
	smoke *conformance.Smoke
	capi  capiParts // Cluster API's core image is on the management node
}

// workloadHosts are the testbed hosts the workload clusters take.
var workloadHosts = []string{"wm", "ww0", "ww1", "ww2"}

// managementOnTestbed boots mg and the workload hosts, deploys the
// management cluster from a bundle carrying eggo's image and Cluster API's
// core image, and installs the GitOps controller.
func managementOnTestbed(t *testing.T) *management {
	t.Helper()
	bundle := bundleDir(t)
	m := &management{repo: repoRoot(t), capi: findCAPIParts(t)}
	eggo := eggotest.Binary(t)
	archive, image := eggoImage(t, m.repo)
	m.image = image
	t.Logf("eggo's image %s (%s)", image, archive)

	// The Jobs' bundle: make bundle's, or (to run the conformance smoke
	// against a workload cluster) a copy carrying the tests' images.
	smoke, err := conformance.NewSmoke(m.repo, k8sVersion, bundle, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m.smoke = smoke
	bundles, bundlePath := filepath.Dir(bundle), filepath.Base(bundle)
	if smoke != nil {
		bundles, bundlePath = filepath.Dir(smoke.Bundle), filepath.Base(smoke.Bundle)
	}
	m.bundlePath = bundlePath
	m.tb = nspawntest.UpForTestWith(t, nspawntest.Options{Names: append([]string{"mg"}, workloadHosts...), Containers: true,
		ReadOnlyBinds: map[string]string{bundleMount: bundles}})
	m.addr = map[string]string{}
	for _, h := range m.tb.Hosts {
		m.addr[h.Name] = h.Address
	}
	m.before = map[string]string{}
	for _, h := range workloadHosts {
		m.before[h] = m.tb.TreeForTest(t, h)
	}

	// The management cluster, by the CLI, with eggo's image and Cluster
	// API's in its bundle.
	mgmtDir := t.TempDir()
	writeFile(t, filepath.Join(mgmtDir, "main.hcl"), mgmtHCL(m.tb, m.addr["mg"], managementBundle(t, m.repo, bundle, archive, m.capi.coreImage)))
	start := time.Now()
	run(t, mgmtDir, eggo, "apply", "-auto-approve")
	t.Logf("management cluster deployed in %s", time.Since(start).Round(time.Second))
	m.kubectl = filepath.Join(bundle, "amd64/usr/local/bin/kubectl")
	m.mg = kube{t: t, kubectl: m.kubectl, kubeconfig: filepath.Join(mgmtDir, "mgmt.kubeconfig")}
	waitFor(t, "the management node Ready", 3*time.Minute, func() (bool, string) {
		out, _ := m.mg.try("get", "nodes", "--no-headers")
		return strings.Contains(out, " Ready "), out
	}, func() string { return "" })

	// The controller, from the committed manifests with the image's tag.
	installController(t, m.mg, m.repo, image)
	return m
}

// checkTreesAsBefore fails for each host whose tree is not what it was
// before any cluster went on it.
func (m *management) checkTreesAsBefore(t *testing.T, why string, hosts ...string) {
	t.Helper()
	for _, h := range hosts {
		if after := m.tb.TreeForTest(t, h); after != m.before[h] {
			t.Errorf("%s left %s changed:\n%s", why, h, nspawntest.TreeDiff(m.before[h], after))
		}
	}
}

// mgmtHCL is the management cluster: one host that is master, etcd
// member and worker (the controller and the Jobs run there).
func mgmtHCL(tb *nspawntest.Testbed, address, bundle string) string {
	h := tb.Hosts[0]
	return fmt.Sprintf(`cluster "mgmt" {
  kubernetes_version = %q
  packages           = %q
  network {
    service_cidr = "10.32.0.0/16"
    pod_cidr     = "10.244.0.0/16"
  }
`+testbedRuntime+`
}

connection {
  user             = %q
  private_key_file = %q
  known_hosts_file = %q
}

node "mg" {
  address = %q
  roles   = ["master", "etcd", "worker"]
}
`, k8sVersion, bundle, h.User, h.KeyFile, h.KnownHostsFile, address)
}
