package engine

import (
	"maps"
	"slices"
	"sync/atomic"

	"github.com/eggo-project/eggo/resources"
)

// desiredRefs is where a desired resource's references are. A plan walks
// each resource's attributes for them once: the graph needs the addresses
// referred to, the resolution of each step the attributes holding them,
// and both walked every attribute of every resource before.
type desiredRefs struct {
	addrs []string // the addresses referred to, each once, in resources.Refs order
	attrs []string // the top-level attributes that hold a Ref, sorted
}

// refWalks counts refsOf's walks, so a test can see each resource walked
// once per plan.
var refWalks atomic.Int64

// refsOf walks d's attributes for references.
func refsOf(d *resources.Desired) desiredRefs {
	refWalks.Add(1)
	var r desiredRefs
	for name, v := range d.Attrs {
		if resources.HasRefs(v) {
			r.attrs = append(r.attrs, name)
		}
	}
	if r.attrs == nil {
		return r
	}
	slices.Sort(r.attrs)
	// resources.Refs of the whole map walks these attributes in this
	// order, so the addresses come in its order.
	for _, name := range r.attrs {
		for _, ref := range resources.Refs(d.Attrs[name]) {
			if !slices.Contains(r.addrs, ref.Addr) {
				r.addrs = append(r.addrs, ref.Addr)
			}
		}
	}
	return r
}

// refsByAddr is refsOf of every desired resource that has references,
// walked on every core (a 10,000-node plan walks 70,000 resources). Sized
// for all: most have some (every service and certificate), and a map
// growing by doubling to thousands is rebuilt over and over.
func refsByAddr(want map[string]*resources.Desired) map[string]desiredRefs {
	ds := slices.Collect(maps.Values(want))
	found := make([]desiredRefs, len(ds))
	resources.EachInParallel(len(ds), func(i int) { found[i] = refsOf(ds[i]) })
	out := make(map[string]desiredRefs, len(want))
	for i, d := range ds {
		if found[i].attrs != nil {
			out[d.Addr] = found[i]
		}
	}
	return out
}
