package kube

import (
	"fmt"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// scaleCluster is three masters and workers workers over a complete bundle.
func scaleCluster(t *testing.T, packages string, workers int) *resources.Cluster {
	c := upgradeCluster("1.31.4", packages)
	c.Network.PodCIDR = "100.64.0.0/10"
	c.Nodes = nil
	for i := range 3 {
		c.Nodes = append(c.Nodes, resources.Node{Name: fmt.Sprintf("m%d", i), Address: fmt.Sprintf("10.0.0.%d", 10+i), Roles: []string{"master", "etcd"}})
	}
	for i := range workers {
		c.Nodes = append(c.Nodes, resources.Node{Name: fmt.Sprintf("w%05d", i), Address: fmt.Sprintf("172.16.%d.%d", i/250, i%250+1), Roles: []string{"worker"}})
	}
	return c
}

// TestWorkerServicesCostIsFlat: expanding a worker's services (containerd,
// kubelet, kube-proxy, flanneld) costs the same allocations for 100
// workers as for 1,000, and what every worker has alike (containerd's
// configuration and unit, kubelet's configuration, kube-proxy's unit and
// kubeconfig, flanneld's files and scripts, the connection attributes, the
// bundle's checks and program digests) is built once per plan, not once
// per worker: 291 allocations a worker today at 1,000 workers, 446
// before (of the 291, 111 are the service attributes themselves).
func TestWorkerServicesCostIsFlat(t *testing.T) {
	packages := writeBundle(t, nil)
	cost := func(workers int) float64 {
		c := scaleCluster(t, packages, workers)
		return testing.AllocsPerRun(3, func() {
			defer c.Index()()
			if ds, err := componentServices(c); err != nil || len(ds) != 9+4*(workers+3) { // each master a Node too
				t.Fatalf("%d services, %v", len(ds), err)
			}
		}) / float64(workers)
	}
	small, large := cost(100), cost(1000)
	t.Logf("allocations per worker: %.1f at 100 workers, %.1f at 1,000", small, large)
	if large > 310 || large > 1.1*small {
		t.Errorf("%.1f allocations per worker expanded at 1,000 workers (%.1f at 100): want at most 310, flat", large, small)
	}
}
