package host

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/eggo-project/eggo/resources"
)

// Plan decides a host's change. Only address, arch and the connection type
// replace a host (it is then another machine); files are converged in
// place (a change of roles shows here as files added and removed); labels
// and the rest of the connection are recorded only.
func (h *Host) Plan(_ context.Context, _ *resources.RunContext, prior *resources.Object, desired resources.Desired) (resources.Change, error) {
	schema := h.Schema()
	ch := resources.Change{Addr: desired.Addr, Kind: h.Name(), Node: desired.Node}
	if prior == nil || (prior.Pending && prior.Attrs[hostConnection] == nil) {
		// Nothing recorded, or a Create that stopped before recording anything.
		ch.Action = resources.Create
		ch.Reasons = []resources.Reason{{Code: resources.ReasonNew}}
		if prior != nil {
			ch.Reasons = []resources.Reason{{Code: resources.ReasonPending, Detail: "a previous apply stopped while creating it"}}
		}
		ch.After = plannedAttrs(desired.Attrs, nil, true)
		ch.Changed = resources.ChangedAttrs(schema, nil, desired.Attrs)
		return ch, nil
	}
	ch.Before = prior.Attrs
	ch.Changed = resources.ChangedAttrs(schema, prior.Attrs, desired.Attrs)
	var pending []resources.Reason
	if prior.Pending {
		pending = []resources.Reason{{Code: resources.ReasonPending, Detail: "a previous apply stopped while changing it; re-reading and converging"}}
	}

	if forced := forcedChanges(prior.Attrs, desired.Attrs); len(forced) > 0 {
		ch.Action = resources.Replace
		ch.Reasons = append(pending, resources.Reason{Code: resources.ReasonConfig, Detail: "forces replacement: " + strings.Join(forced, ", ")})
		ch.After = plannedAttrs(desired.Attrs, nil, true)
		return ch, nil
	}

	diff := diffFiles(parseFiles(prior.Attrs[hostFiles]), parseFiles(desired.Attrs[hostFiles]))
	ch.Reasons = pending
	var config []string
	if s := diff.configSummary(); s != "" {
		config = append(config, "files ("+s+")")
	}
	for _, name := range ch.Changed {
		if name != hostFiles {
			config = append(config, name)
		}
	}
	if len(config) > 0 {
		ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonConfig, Detail: strings.Join(config, ", ")})
	}
	if len(diff.drifted) > 0 {
		ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonDrift, Detail: summarizePaths(diff.drifted)})
	}
	if len(ch.Reasons) == 0 {
		ch.Action = resources.NoOp
		ch.After = prior.Attrs
		ch.Changed = nil
		return ch, nil
	}
	ch.Action = resources.Update
	ch.After = plannedAttrs(desired.Attrs, prior.Attrs, diff.touchesHost() || prior.Pending)
	return ch, nil
}

// forcedChanges describes the ForceNew differences: "address 10.0.0.1 → 10.0.0.2".
func forcedChanges(before, after resources.Attrs) []string {
	var out []string
	for _, name := range []string{hostAddress, hostArch} {
		if b, a := resources.AttrString(before[name]), resources.AttrString(after[name]); b != a {
			out = append(out, fmt.Sprintf("%s %s → %s", name, b, a))
		}
	}
	bc, _ := before[hostConnection].(map[string]any)
	ac, _ := after[hostConnection].(map[string]any)
	if b, a := resources.ConnType(resources.AttrString(bc["type"])), resources.ConnType(resources.AttrString(ac["type"])); b != a {
		out = append(out, fmt.Sprintf("connection.type %s → %s", b, a))
	}
	return out
}

// plannedAttrs is a change's After: the desired attributes plus the
// computed ones, carried over from prior when the host is not touched and
// known only after apply otherwise.
func plannedAttrs(desired, prior resources.Attrs, touchesHost bool) resources.Attrs {
	after := make(resources.Attrs, len(desired)+3)
	for k, v := range desired {
		after[k] = v
	}
	for _, name := range []string{hostFacts, hostCreated, hostReplaced, hostFileStats} {
		if v, ok := prior[name]; ok && (name == hostFacts || !touchesHost) {
			after[name] = v
		} else {
			after[name] = resources.Unknown{}
		}
	}
	return after
}

// filesDiff is how the recorded files differ from the desired ones.
type filesDiff struct {
	added, changed, removed []string
	modeChanged             []string // same content, other mode: a chmod
	drifted                 []string // "PATH (modified|missing)", found by refresh
}

func diffFiles(prior, desired []bundleFile) filesDiff {
	var d filesDiff
	if sameSortedPaths(prior, desired) {
		// The usual plan: the same files, both lists sorted by path (as
		// filesAttr records them). Each desired file's recorded one is
		// beside it, with no map to find it.
		for i, f := range desired {
			d.classify(prior[i], f)
		}
		return d
	}
	byPath := make(map[string]bundleFile, len(prior))
	for _, f := range prior {
		byPath[f.Path] = f
	}
	for _, f := range desired {
		p, ok := byPath[f.Path]
		delete(byPath, f.Path)
		if !ok {
			d.added = append(d.added, f.Path)
			continue
		}
		d.classify(p, f)
	}
	for p := range byPath {
		d.removed = append(d.removed, p)
	}
	sort.Strings(d.removed)
	return d
}

// classify records how desired file f differs from its recorded p.
func (d *filesDiff) classify(p, f bundleFile) {
	switch {
	case p.Drift != "" && (p.SHA256 != f.SHA256 || p.Mode != f.Mode):
		d.drifted = append(d.drifted, f.Path+" ("+p.Drift+")")
	case p.SHA256 != f.SHA256:
		d.changed = append(d.changed, f.Path)
	case p.Mode != f.Mode:
		d.modeChanged = append(d.modeChanged, f.Path)
	}
}

// sameSortedPaths reports whether prior and desired name the same files
// in the same order, strictly increasing (so no path is there twice).
func sameSortedPaths(prior, desired []bundleFile) bool {
	if len(prior) != len(desired) {
		return false
	}
	for i := range prior {
		if prior[i].Path != desired[i].Path || i > 0 && prior[i-1].Path >= prior[i].Path {
			return false
		}
	}
	return true
}

func (d filesDiff) touchesHost() bool {
	return len(d.added)+len(d.changed)+len(d.removed)+len(d.modeChanged)+len(d.drifted) > 0
}

// configSummary is "+ /a, ~ /b, - /c" for files the configuration changed.
func (d filesDiff) configSummary() string {
	var items []string
	for _, p := range d.added {
		items = append(items, "+ "+p)
	}
	for _, p := range d.changed {
		items = append(items, "~ "+p)
	}
	for _, p := range d.modeChanged {
		items = append(items, "~ "+p+" (mode)")
	}
	for _, p := range d.removed {
		items = append(items, "- "+p)
	}
	return summarizePaths(items)
}

// summarizePaths joins items, cutting long lists: a plan of a changed
// 500-file bundle stays readable.
func summarizePaths(items []string) string {
	const max = 10
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s, and %d more", strings.Join(items[:max], ", "), len(items)-max)
}
