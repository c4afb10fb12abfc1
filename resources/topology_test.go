package resources

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func topologyCluster(workers int) *Cluster {
	c := &Cluster{}
	for i := range 3 {
		c.Nodes = append(c.Nodes, Node{Name: fmt.Sprintf("m%d", i), Address: fmt.Sprintf("10.0.0.%d", 10+i), Roles: []string{"master", "etcd", "master"}})
	}
	for i := range workers {
		c.Nodes = append(c.Nodes, Node{Name: fmt.Sprintf("w%d", i), Address: fmt.Sprintf("10.1.%d.%d", i/250, i%250+1), Roles: []string{"worker"}})
	}
	return c
}

// TestIndexAnswersAsTheNodeList: an indexed cluster's NodesWithRole and
// Endpoint are the node list's answers, and done drops the index.
func TestIndexAnswersAsTheNodeList(t *testing.T) {
	for _, c := range []*Cluster{topologyCluster(5), {Nodes: []Node{{Name: "lb", Address: "10.0.0.1", Roles: []string{"loadbalance"}}}}} {
		want := map[string][]Node{}
		roles := []string{"master", "etcd", "worker", "loadbalance", "none"}
		for _, r := range roles {
			want[r] = c.NodesWithRole(r)
		}
		ep := c.Endpoint()
		done := c.Index()
		for _, r := range roles {
			if got := c.NodesWithRole(r); !reflect.DeepEqual(got, want[r]) {
				t.Errorf("indexed NodesWithRole(%s) = %v, want %v", r, got, want[r])
			}
		}
		if got := c.Endpoint(); got != ep {
			t.Errorf("indexed Endpoint = %q, want %q", got, ep)
		}
		c.Index()() // nested: leaves the outer index
		if c.topo == nil {
			t.Error("a nested Index's done dropped the outer index")
		}
		done()
		c.Nodes = c.Nodes[1:]
		if got := c.NodesWithRole("master"); len(got) >= len(want["master"]) && len(want["master"]) > 0 {
			t.Errorf("after done, NodesWithRole still answers from the index: %v", got)
		}
	}
}

// TestIndexedTopologyCostsNothingPerNode: what every node's expansion asks
// of the whole cluster (the masters, the endpoint) costs no allocation on
// an indexed cluster, at any size: asked of the node list, it cost an
// allocation per call growing with the nodes, N² for a plan.
func TestIndexedTopologyCostsNothingPerNode(t *testing.T) {
	for _, workers := range []int{100, 1000} {
		c := topologyCluster(workers)
		done := c.Index()
		allocs := testing.AllocsPerRun(100, func() {
			if len(c.NodesWithRole("master")) != 3 || len(c.NodesWithRole("worker")) != workers || c.APIServerURL() != "https://10.0.0.10:6443" {
				t.Fatal("wrong topology")
			}
		})
		done()
		// APIServerURL's concatenation is the one allocation.
		if allocs > 1 {
			t.Errorf("%d workers: %.0f allocations per node's questions, want at most 1", workers, allocs)
		}
	}
}

// TestIndexLooksAtEachBundleFileOnce: while the cluster is indexed, every
// node's question about a bundle file is answered from one look at it
// (a file added meanwhile is not seen); released, the file is looked at
// again.
func TestIndexLooksAtEachBundleFileOnce(t *testing.T) {
	c := topologyCluster(3)
	c.Packages = t.TempDir()
	rel := "usr/local/bin/kubelet"
	done := c.Index()
	if _, why := BundleLacks(c, c.Nodes[3], rel); why != "it is missing" {
		t.Fatalf("why = %q", why)
	}
	p := filepath.Join(c.Packages, "amd64", rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range c.Nodes[3:] {
		if _, why := BundleLacks(c, n, rel); why != "it is missing" {
			t.Errorf("indexed: %s: the bundle was looked at again (%q)", n.Name, why)
		}
	}
	done()
	if _, why := BundleLacks(c, c.Nodes[3], rel); why != "" {
		t.Errorf("released: why = %q, want the file found", why)
	}
}
