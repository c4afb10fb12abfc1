package engine

import (
	"context"
	"strings"

	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/resources"
)

// Rekey is what Workspace.RekeyHost did.
type Rekey struct {
	Node     string
	Old, New string // fingerprints; Old "" when nothing was pinned
}

// rekeyHost accepts a reinstalled host deliberately: it fetches the key
// node presents now (without logging in) and pins it in the state in place
// of the old one. With wantFingerprint set ("SHA256:…", checked out of
// band), a different key is refused. The caller holds the state's lock.
func rekeyHost(ctx context.Context, o options, cfg *config.Config, node, wantFingerprint string) (*Rekey, error) {
	var target *resources.Node
	for i := range cfg.Cluster.Nodes {
		if cfg.Cluster.Nodes[i].Name == node {
			target = &cfg.Cluster.Nodes[i]
		}
	}
	if target == nil {
		return nil, errorf("node %q is not in the configuration (nodes: %s)", node, nodeNames(cfg.Cluster))
	}
	st, err := o.readState()
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, errorf("no state yet in %s: a host's key is pinned on the first plan or apply", o.backend().Describe())
	}
	// Ask for the pinned key's type first, so the new key is comparable.
	rc, done := o.runContext(runSpec{pins: newHostPins(st, nil)})
	defer done()
	k, err := rc.ScanHostKey(ctx, *target)
	if err != nil {
		return nil, errorf("%s: fetching its host key: %v", node, err)
	}
	if k == nil {
		return nil, errorf("%s is not reached over SSH: it has no host key to pin", node)
	}
	r := &Rekey{Node: node, New: resources.Fingerprint(k)}
	if old, ok := st.HostKeys[node]; ok {
		r.Old = fingerprintOf(old)
	}
	if wantFingerprint != "" && !strings.HasSuffix(r.New, " "+wantFingerprint) && r.New != wantFingerprint {
		return nil, errorf("%s presents %s, not the %s you expected: nothing was pinned", node, r.New, wantFingerprint)
	}
	// The configuration's host_key is the expected key when it has one:
	// pinning another would only have the next plan refuse it.
	if hk := target.Connection.HostKey; hk != "" && !sameHostKey(hk, resources.FormatHostKey(k)) {
		return nil, errorf("%s presents %s, not %s that its connection's host_key names: nothing was pinned", node, r.New, fingerprintOf(hk))
	}
	next := st.Copy()
	setHostKey(next, node, resources.FormatHostKey(k))
	if next.HostKeys[node] == st.HostKeys[node] {
		return r, nil
	}
	next.BumpSerial()
	if err := o.backend().Write(next); err != nil {
		return nil, err
	}
	return r, nil
}

func nodeNames(c *resources.Cluster) string {
	names := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		names[i] = n.Name
	}
	return strings.Join(names, ", ")
}
