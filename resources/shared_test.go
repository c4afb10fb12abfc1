package resources

import (
	"reflect"
	"testing"
)

// TestSharedComputesOncePerIndex: while the cluster is indexed, a shared
// value is computed once for every node asking (the plan of 1,000 workers
// built each worker's alike parts 1,000 times); unindexed, each call
// computes anew, and keys of different types never meet.
func TestSharedComputesOncePerIndex(t *testing.T) {
	type keyA string
	type keyB string
	c := topologyCluster(10)
	calls := 0
	compute := func() int { calls++; return calls }
	done := c.Index()
	for range c.Nodes {
		if v := Shared(c, keyA("x"), compute); v != 1 {
			t.Fatalf("indexed: got %d, want the first computation's 1", v)
		}
	}
	if v := Shared(c, keyB("x"), compute); v != 2 || calls != 2 {
		t.Errorf("another key type's x: got %d after %d computations, want its own (2)", v, calls)
	}
	done()
	Shared(c, keyA("x"), compute)
	Shared(c, keyA("x"), compute)
	if calls != 4 {
		t.Errorf("unindexed: %d computations, want one per call (4)", calls)
	}
}

// TestConnectionAttrsInSharesOneMapPerConnection: every node that connects
// alike gets the same map while the cluster is indexed (a plan stored one
// per resource, seven a worker), equal to ConnectionAttrs's.
func TestConnectionAttrsInSharesOneMapPerConnection(t *testing.T) {
	c := topologyCluster(3)
	for i := range c.Nodes {
		c.Nodes[i].Connection = Connection{User: "root", Port: 22}
	}
	c.Nodes[1].Connection.User = "admin"
	defer c.Index()()
	first := ConnectionAttrsIn(c, c.Nodes[0])
	for _, n := range c.Nodes {
		got := ConnectionAttrsIn(c, n)
		if !reflect.DeepEqual(got, ConnectionAttrs(n)) {
			t.Errorf("%s: %v, want %v", n.Name, got, ConnectionAttrs(n))
		}
		if same := reflect.ValueOf(got).UnsafePointer() == reflect.ValueOf(first).UnsafePointer(); same != (n.Connection == c.Nodes[0].Connection) {
			t.Errorf("%s: shares the first node's map: %v", n.Name, same)
		}
	}
}
