package host

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/eggo-project/eggo/resources"
)

// Read refreshes a host with one read-only command: its facts, the sha256
// of every recorded file whose stat moved since its content was last
// verified (the quick check, quick.go) and whether the directories
// eggo created are still there. Files found changed or gone are marked in
// the files attribute (sha256 of the live content, "" when gone, and
// drift), which is what Plan turns into an update. Files found as
// recorded get their current stat in file_stats.
func (h *Host) Read(ctx context.Context, rc *resources.RunContext, prior resources.Object) (resources.Attrs, []resources.Reason, error) {
	node := resources.AttrOr(prior.Node, resources.AttrString(prior.Attrs[hostName]))
	where := fmt.Sprintf("%s (%s)", prior.Addr, resources.AttrString(prior.Attrs[hostAddress]))
	conn, err := rc.Connect(ctx, node, prior.Attrs)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", where, err)
	}
	files := parseFiles(prior.Attrs[hostFiles])
	recs := parseRecords(prior.Attrs)
	probe := hostProbe{dirs: slices.Sorted(maps.Keys(recs.dirs)), known: knownFiles(files, parseFileStats(prior.Attrs[hostFileStats]))}
	for _, f := range files {
		probe.files = append(probe.files, f.Path)
	}
	out, err := resources.RunScript(ctx, conn, factsScript(nil)+probe.script(), false)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: refreshing: %w", where, err)
	}
	liveFiles, liveDirs := probe.parse(out)
	h.countHashed(liveFiles)

	var drifted, gone []string
	stats := make(map[string]string, len(files))
	for i, f := range files {
		st, ok := liveFiles[f.Path]
		if !ok {
			return nil, nil, fmt.Errorf("%s: refreshing: the host did not report %s", where, f.Path)
		}
		switch {
		case st.matches(f):
			if f.Drift != "" { // marked by an earlier refresh and not fixed since
				drifted = append(drifted, f.Path+" ("+f.Drift+")")
			} else if st.stat != "" {
				stats[f.Path] = st.stat
			}
			continue
		case st.state == probeMissing:
			files[i].SHA256, files[i].Drift = "", driftMissing
		case !st.isFile():
			files[i].SHA256, files[i].Drift = "", driftModified
		default:
			files[i].SHA256, files[i].Mode, files[i].Drift = st.state, st.mode, driftModified
		}
		drifted = append(drifted, f.Path+" ("+files[i].Drift+")")
	}
	for _, d := range probe.dirs {
		if liveDirs[d] != probeDir {
			gone = append(gone, d)
		}
	}

	live := make(resources.Attrs, len(prior.Attrs))
	for k, v := range prior.Attrs {
		live[k] = v
	}
	live[hostFacts] = parseFacts(out).attr()
	if _, had := prior.Attrs[hostFileStats]; had || len(stats) > 0 {
		live[hostFileStats] = fileStatsAttr(stats)
	}
	var reasons []resources.Reason
	if len(drifted) > 0 {
		live[hostFiles] = filesAttr(files)
		reasons = append(reasons, resources.Reason{Code: resources.ReasonDrift, Detail: summarizePaths(drifted)})
	}
	if len(gone) > 0 {
		reasons = append(reasons, resources.Reason{Code: resources.ReasonDrift, Detail: "directories eggo created are gone: " + summarizePaths(gone)})
	}
	return live, reasons, nil
}
