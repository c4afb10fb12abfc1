package host

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/resources"
)

// Create prepares a new host: preflight, then the bundle.
func (h *Host) Create(ctx context.Context, rc *resources.RunContext, desired resources.Desired, _ resources.Change) (resources.Attrs, error) {
	a := h.newApply(rc, desired.Addr, desired.Node, desired.Attrs, nil)
	err := a.converge(ctx)
	if err != nil && a.recs.empty() {
		return nil, err // nothing on the host changed
	}
	return a.result(), err
}

// Update converges a recorded host to its desired bundle files. A change
// of labels or connection details, or of roles that needs no other files,
// touches nothing on the host.
func (h *Host) Update(ctx context.Context, rc *resources.RunContext, prior resources.Object, desired resources.Desired, planned resources.Change) (resources.Attrs, error) {
	a := h.newApply(rc, desired.Addr, desired.Node, desired.Attrs, prior.Attrs)
	if stateOnly(planned) {
		return a.result(), nil
	}
	err := a.converge(ctx)
	return a.result(), err
}

// stateOnly reports whether a planned update changes only what eggo
// records, not the host.
func stateOnly(planned resources.Change) bool {
	for _, r := range planned.Reasons {
		if r.Code != resources.ReasonConfig {
			return false
		}
	}
	for _, name := range planned.Changed {
		if name == hostFiles {
			return false
		}
	}
	return len(planned.Reasons) > 0
}

// hostApply is one Create or Update in progress. It records each change
// the moment it is made so that, on error, result() says exactly what the
// host now holds, and a Delete from that can undo it.
type hostApply struct {
	h          *Host
	rc         *resources.RunContext
	addr, node string
	desired    resources.Attrs
	prior      resources.Attrs
	recs       *hostRecords
	facts      map[string]any
	done       map[string]bundleFile // files known to hold their desired content
	// afterInstall is what the files installed this run ask for once they
	// are in place (resources.AfterBundleFileInstalled), run together in one
	// command after the last.
	afterInstall []string
	removed      map[string]bool // prior files no longer in the bundle, now cleaned up
	conn         providers.Conn
	dirExists    map[string]bool
	desiredList  []bundleFile
	// stats are the quick-check stats of files in done, taken once their
	// content was known; priorStats those recorded before this run.
	stats, priorStats map[string]string
}

func (h *Host) newApply(rc *resources.RunContext, addr, node string, desired, prior resources.Attrs) *hostApply {
	a := &hostApply{
		h: h, rc: rc, addr: addr, node: node, desired: desired, prior: prior,
		recs:        parseRecords(prior),
		done:        map[string]bundleFile{},
		removed:     map[string]bool{},
		dirExists:   map[string]bool{},
		desiredList: parseFiles(desired[hostFiles]),
		stats:       map[string]string{},
		priorStats:  parseFileStats(prior[hostFileStats]),
	}
	if f, ok := prior[hostFacts].(map[string]any); ok {
		a.facts = f
	}
	return a
}

// errorf names the host and its address in every error.
func (a *hostApply) errorf(format string, args ...any) error {
	return fmt.Errorf("%s (%s): %w", a.addr, resources.AttrString(a.desired[hostAddress]), fmt.Errorf(format, args...))
}

func (a *hostApply) converge(ctx context.Context) error {
	var err error
	if a.conn, err = a.rc.Connect(ctx, a.node, a.desired); err != nil {
		return a.errorf("%w", err)
	}
	facts, err := a.h.gatherFacts(ctx, a.conn, parentDirs(a.desiredList))
	if err != nil {
		return a.errorf("%w", err)
	}
	a.facts = facts.attr()

	probe := hostProbe{known: knownFiles(parseFiles(a.prior[hostFiles]), a.priorStats)}
	for _, f := range a.desiredList {
		probe.files = append(probe.files, f.Path, a.h.backupPath(f.Path))
	}
	probe.dirs = ancestorDirs(probe.files)
	out, err := resources.RunScript(ctx, a.conn, probe.script(), false)
	if err != nil {
		return a.errorf("checking files: %w", err)
	}
	live, dirs := probe.parse(out)
	a.h.countHashed(live)
	for d, st := range dirs {
		a.dirExists[d] = st == probeDir
		if st == probeNotDir {
			return a.errorf("%s is in the way: it should be a directory", d)
		}
	}

	var toCopy []bundleFile
	for _, f := range a.desiredList {
		if live[f.Path].state != f.SHA256 {
			toCopy = append(toCopy, f)
		}
	}
	if problems := preflight(facts, resources.AttrString(a.desired[hostArch]), toCopy); len(problems) > 0 {
		return a.errorf("preflight failed: %s", strings.Join(problems, "; "))
	}

	// Write-ahead: record everything this run is about to create or move
	// aside before touching the host, in one checkpoint. A crash at any
	// point after leaves records Delete can undo (it tolerates a recorded
	// file or directory that never appeared).
	// The intent goes on a copy: install decides what is eggo's from the
	// records as they were before this run.
	before := a.recs
	a.recs = before.clone()
	if a.intend(live) {
		if err := a.rc.Checkpoint(a.addr, a.result()); err != nil {
			a.recs = before
			return a.errorf("recording what this apply will change, before changing it: %w", err)
		}
	}
	a.recs = before
	for _, f := range a.desiredList {
		if err := a.install(ctx, f, live[f.Path], live[a.h.backupPath(f.Path)]); err != nil {
			return err
		}
	}
	if len(a.afterInstall) > 0 {
		if _, err := a.run(ctx, "set -e\n"+strings.Join(a.afterInstall, "\n"), true); err != nil {
			return a.errorf("after installing the bundle's files: %w", err)
		}
	}
	priorFiles := map[string]bundleFile{}
	for _, f := range parseFiles(a.prior[hostFiles]) {
		priorFiles[f.Path] = f
	}
	return a.removeStale(ctx, priorFiles)
}

// intend records, without running anything, what install will create or
// move aside; it reports whether there is anything to record.
func (a *hostApply) intend(live map[string]probedFile) bool {
	any := false
	missingDirs := func(dir string) {
		for d := dir; d != "/" && d != "." && !a.dirExists[d]; d = path.Dir(d) {
			if !a.recs.dirs[d] {
				a.recs.dirs[d] = true
				any = true
			}
		}
	}
	for _, f := range a.desiredList {
		lf := live[f.Path]
		_, replaced := a.recs.replaced[f.Path]
		ours := a.recs.files[f.Path] || replaced
		if lf.matches(f) || lf.state == f.SHA256 && ours || lf.state == "" || lf.state == probeNotFile || lf.state == probeUnreadable {
			continue
		}
		missingDirs(path.Dir(f.Path))
		if lf.isFile() && !ours {
			backup := a.h.backupPath(f.Path)
			missingDirs(path.Dir(backup))
			sha := lf.state
			if lb := live[backup]; lb.isFile() {
				sha = lb.state
			}
			a.recs.replaced[f.Path] = replacedFile{backup: backup, sha256: sha}
			any = true
		}
		if lf.state == probeMissing && !replaced && !a.recs.files[f.Path] {
			a.recs.files[f.Path] = true
			any = true
		}
	}
	return any
}

// result is what the host now holds: desired attributes, with files
// limited to those known in place (and prior entries for files not yet
// converged), so a plan after a failure shows what is still to do.
func (a *hostApply) result() resources.Attrs {
	out := make(resources.Attrs, len(a.desired)+3)
	for k, v := range a.desired {
		out[k] = v
	}
	var files []bundleFile
	seen := map[string]bool{}
	// A stat goes with the file entry it was taken for: this run's for
	// files it converged, the recorded one for entries carried over.
	stats := map[string]string{}
	for _, f := range a.desiredList {
		if d, ok := a.done[f.Path]; ok {
			files = append(files, d)
			seen[f.Path] = true
			if st, ok := a.stats[f.Path]; ok {
				stats[f.Path] = st
			}
		}
	}
	if a.prior != nil {
		for _, f := range parseFiles(a.prior[hostFiles]) {
			if !seen[f.Path] && !a.removed[f.Path] {
				files = append(files, f)
				seen[f.Path] = true
				if st, ok := a.priorStats[f.Path]; ok && f.Drift == "" {
					stats[f.Path] = st
				}
			}
		}
	}
	// A file the write-ahead record says eggo is about to create is
	// listed too, as missing until it is in place: every created file is
	// one the record declares (CheckRecord).
	for _, f := range a.desiredList {
		if a.recs.files[f.Path] && !seen[f.Path] {
			f.SHA256, f.Drift = "", driftMissing
			files = append(files, f)
		}
	}
	out[hostFiles] = filesAttr(files)
	out[hostFileStats] = fileStatsAttr(stats)
	if a.facts != nil {
		out[hostFacts] = a.facts
	}
	out[hostCreated] = a.recs.createdAttr()
	out[hostReplaced] = a.recs.replacedAttr()
	return out
}

func (a *hostApply) run(ctx context.Context, cmd string, mutates bool) (string, error) {
	var out strings.Builder
	err := a.conn.Run(ctx, providers.Command{Cmd: cmd, Stdout: &out, Mutates: mutates})
	return out.String(), err
}

func (h *Host) backupPath(p string) string { return path.Join(h.backupDir, p) }

// parentDirs are the distinct directories files go into.
func parentDirs(files []bundleFile) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		if d := path.Dir(f.Path); !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// ancestorDirs are the distinct directories above paths, excluding /.
func ancestorDirs(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		for d := path.Dir(p); d != "/" && d != "." && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}
