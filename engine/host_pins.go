package engine

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	gossh "golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// hostPins backs a run's SSH host key checks with the state: a node whose
// key the state pins must present it; a node met for the first time is
// accepted and its key recorded.
type hostPins struct {
	mu     sync.Mutex
	pinned map[string]string // node → "ssh-ed25519 AAAA…"
	seen   map[string]string // first contact in this run
	onSeen func(node, key string)
}

// newHostPins starts from the state's pins plus the keys a plan showed
// for pinning (an apply must meet exactly the keys its plan showed).
func newHostPins(prior *state.State, planned []HostKeyChange) *hostPins {
	h := &hostPins{pinned: map[string]string{}, seen: map[string]string{}}
	if prior != nil {
		for n, k := range prior.HostKeys {
			h.pinned[n] = k
		}
	}
	for _, c := range planned {
		if c.Action == "pin" && c.Key != "" {
			h.pinned[c.Node] = c.Key
		}
	}
	return h
}

func (h *hostPins) Pinned(node string) (gossh.PublicKey, bool) {
	h.mu.Lock()
	line, ok := h.pinned[node]
	if !ok {
		line, ok = h.seen[node]
	}
	h.mu.Unlock()
	if !ok {
		return nil, false
	}
	k, err := resources.ParseHostKey(line)
	if err != nil {
		// A damaged pin must not open the door: a key no host has.
		return unparsablePin{}, true
	}
	return k, true
}

func (h *hostPins) Seen(node string, key gossh.PublicKey) {
	line := resources.FormatHostKey(key)
	h.mu.Lock()
	h.seen[node] = line
	cb := h.onSeen
	h.mu.Unlock()
	if cb != nil {
		cb(node, line)
	}
}

// firstSeen returns the keys met for the first time in this run.
func (h *hostPins) firstSeen() map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]string, len(h.seen))
	for n, k := range h.seen {
		out[n] = k
	}
	return out
}

func (h *hostPins) has(node string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, a := h.pinned[node]
	_, b := h.seen[node]
	return a || b
}

// unparsablePin stands for a pin the state holds but cannot parse.
type unparsablePin struct{}

func (unparsablePin) Type() string                          { return "unparsable-pin" }
func (unparsablePin) Marshal() []byte                       { return []byte("unparsable pin in state") }
func (unparsablePin) Verify([]byte, *gossh.Signature) error { return errorf("unparsable pin") }

// planHostKeys lists the host key changes of a plan: keys met for the
// first time while refreshing, keys of nodes not yet contacted (scanned,
// like ssh-keyscan, unless -refresh=false), and pins of nodes that leave.
func planHostKeys(ctx context.Context, o options, rc *resources.RunContext, pins *hostPins, c *resources.Cluster, prior *state.State) ([]HostKeyChange, []string) {
	var out []HostKeyChange
	var warnings []string
	inCluster := map[string]bool{}
	if c != nil && !o.Destroy {
		for _, n := range c.Nodes {
			inCluster[n.Name] = true
		}
		if !o.NoRefresh {
			warnings = scanNew(ctx, o, rc, pins, c.Nodes)
		}
	}
	seen := pins.firstSeen()
	for _, n := range slices.Sorted(maps.Keys(seen)) {
		if inCluster[n] {
			out = append(out, HostKeyChange{Node: n, Action: "pin", Key: seen[n], Fingerprint: fingerprintOf(seen[n])})
		}
	}
	if prior != nil {
		for _, n := range slices.Sorted(maps.Keys(prior.HostKeys)) {
			if !inCluster[n] {
				out = append(out, HostKeyChange{Node: n, Action: "forget", Key: prior.HostKeys[n], Fingerprint: fingerprintOf(prior.HostKeys[n])})
			}
		}
	}
	return out, warnings
}

// scanNew fetches the host key of every node not pinned and not yet met,
// in parallel. A node that cannot be reached, or whose key its known_hosts
// file contradicts, is left for the apply: its first dial pins the key, or
// refuses it.
func scanNew(ctx context.Context, o options, rc *resources.RunContext, pins *hostPins, nodes []resources.Node) []string {
	byName := map[string]resources.Node{}
	var names []string
	for _, n := range nodes {
		if !pins.has(n.Name) {
			byName[n.Name] = n
			names = append(names, n.Name)
		}
	}
	var mu sync.Mutex
	var warnings []string
	wr := eachBounded(ctx, o.Parallelism, names, func(ctx context.Context, name string) error {
		n := byName[name]
		k, err := rc.ScanHostKey(ctx, n)
		if err != nil {
			o.Log.Debug("host key scan failed", "node", n.Name, "error", err)
			return nil
		}
		if k == nil {
			return nil
		}
		// The scan does not verify; the node's host_key, or else
		// known_hosts where it knows the node, must agree before the
		// key is offered as a pin (the apply's first dial then refuses
		// the node, saying which key it expected).
		if err := resources.CheckKnownHost(n, k); err != nil {
			o.Log.Warn("host key not offered for pinning", "node", n.Name, "error", err)
			mu.Lock()
			warnings = append(warnings, fmt.Sprintf("%v (its resources will fail at apply)", err))
			mu.Unlock()
			return nil
		}
		pins.Seen(n.Name, k)
		return nil
	})
	for name, err := range wr.Errors {
		// Only a panic gets here: the node is left for the apply's dial.
		o.Log.Error("host key scan failed", "node", name, "error", err)
	}
	sort.Strings(warnings)
	return warnings
}

// checkConfiguredHostKeys refuses a node whose host_key differs from the
// key the state pins for it: the host could present only one of them, so
// the operator must say which is right. The first such node is blamed at
// its host_key, the others named.
func checkConfiguredHostKeys(c *resources.Cluster, prior *state.State) error {
	if c == nil || prior == nil {
		return nil
	}
	var first *resources.Node
	var firstPin string
	var others []string
	for i, n := range c.Nodes {
		pin, ok := prior.HostKeys[n.Name]
		if n.Connection.HostKey == "" || resources.ConnType(n.Connection.Type) != "ssh" || !ok || sameHostKey(pin, n.Connection.HostKey) {
			continue
		}
		if first == nil {
			first, firstPin = &c.Nodes[i], pin
		} else {
			others = append(others, n.Name)
		}
	}
	if first == nil {
		return nil
	}
	also := ""
	if len(others) > 0 {
		also = fmt.Sprintf(" The same holds for %s.", strings.Join(others, ", "))
	}
	return resources.Blame(first.Ranges.At("connection.host_key"), "Host key differs from the state's pin",
		"%s: its connection's host_key is %s, but the state pins %s for it since an earlier contact; the host cannot present both, "+
			"and eggo will not choose. If the host was reinstalled with the key host_key names, accept that key in the state "+
			"with: eggo state rekey-host %s (it refuses a key other than host_key). Otherwise correct host_key.%s",
		first.Name, fingerprintOf(first.Connection.HostKey), fingerprintOf(firstPin), first.Name, also)
}

// sameHostKey compares two keys written as the state writes them; a
// comment or spacing is no difference.
func sameHostKey(a, b string) bool {
	ka, errA := resources.ParseHostKey(a)
	kb, errB := resources.ParseHostKey(b)
	if errA != nil || errB != nil {
		return false
	}
	return bytes.Equal(ka.Marshal(), kb.Marshal())
}

func fingerprintOf(line string) string {
	k, err := resources.ParseHostKey(line)
	if err != nil {
		return "(unparsable key)"
	}
	return resources.Fingerprint(k)
}

func setHostKey(st *state.State, node, key string) {
	if st.HostKeys == nil {
		st.HostKeys = map[string]string{}
	}
	st.HostKeys[node] = key
}

// pinPlanned records the keys the plan showed for pinning.
func pinPlanned(st *state.State, changes []HostKeyChange) {
	for _, c := range changes {
		if c.Action == "pin" && c.Key != "" {
			setHostKey(st, c.Node, c.Key)
		}
	}
}

// forgetHostKeys drops the pins of nodes that left the cluster, once the
// state holds nothing of them any more.
func forgetHostKeys(rec *recorder, changes []HostKeyChange) error {
	var gone []string
	snap := rec.snapshot()
	for _, c := range changes {
		if c.Action != "forget" {
			continue
		}
		left := true
		for _, r := range snap.Resources {
			if r.Node == c.Node {
				left = false
				break
			}
		}
		if left {
			gone = append(gone, c.Node)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	return rec.update(func(st *state.State) {
		for _, n := range gone {
			delete(st.HostKeys, n)
		}
	})
}

func hasPins(changes []HostKeyChange) bool {
	for _, c := range changes {
		if c.Action == "pin" {
			return true
		}
	}
	return false
}
