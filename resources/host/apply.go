package host

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/shell"
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
	h           *Host
	rc          *resources.RunContext
	addr, node  string
	desired     resources.Attrs
	prior       resources.Attrs
	recs        *hostRecords
	facts       map[string]any
	done        map[string]bundleFile // files known to hold their desired content
	removed     map[string]bool       // prior files no longer in the bundle, now cleaned up
	conn        providers.Conn
	dirExists   map[string]bool
	desiredList []bundleFile
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

// install makes one file hold its desired content and mode.
func (a *hostApply) install(ctx context.Context, f bundleFile, live, liveBackup probedFile) error {
	_, replaced := a.recs.replaced[f.Path]
	ours := a.recs.files[f.Path] || replaced
	switch {
	case live.matches(f):
		a.done[f.Path] = f
		a.setStat(f.Path, live.stat)
		return nil
	case live.state == f.SHA256 && ours:
		// Only the mode differs, on a file that is eggo's anyway. The chmod
		// moves its ctime: the stat is taken again, in the same command.
		out, err := a.run(ctx, "chmod "+f.Mode+" -- "+shell.Quote(f.Path)+" && { "+quickStatCmd(f.Path)+" || :; }", true)
		if err != nil {
			return a.errorf("%s: %w", f.Path, err)
		}
		a.done[f.Path] = f
		a.setStat(f.Path, out)
		return nil
	case live.state == "":
		return a.errorf("%s: the host did not report its state", f.Path)
	case live.state == probeNotFile || live.state == probeUnreadable:
		return a.errorf("%s is in the way: it exists and is not a readable regular file", f.Path)
	}
	if err := a.mkdirAll(ctx, path.Dir(f.Path)); err != nil {
		return err
	}
	if live.isFile() && !ours {
		// Someone else's file, with other content or mode: keep it to restore on delete.
		if err := a.moveAside(ctx, f.Path, live.state, liveBackup); err != nil {
			return err
		}
	}
	if err := a.upload(ctx, f); err != nil {
		return err // an upload that fails leaves dst as it was
	}
	if live.state == probeMissing && !replaced {
		a.recs.files[f.Path] = true
	}
	return nil
}

// moveAside keeps a pre-existing file with other content in the backup
// directory. A backup already there that state does not know of is one an
// interrupted run made: it holds the original, so it is adopted, not
// overwritten.
func (a *hostApply) moveAside(ctx context.Context, p, live string, liveBackup probedFile) error {
	backup := a.h.backupPath(p)
	if liveBackup.isFile() {
		a.rc.Log.Warn("adopting a backup left by an interrupted run", "host", a.node, "path", p, "backup", backup)
		a.recs.replaced[p] = replacedFile{backup: backup, sha256: liveBackup.state}
		return nil
	}
	if liveBackup.state != probeMissing {
		return a.errorf("%s: cannot move it aside: %s is in the way", p, backup)
	}
	if err := a.mkdirAll(ctx, path.Dir(backup)); err != nil {
		return err
	}
	if _, err := a.run(ctx, "mv -f -- "+shell.Quote(p)+" "+shell.Quote(backup), true); err != nil {
		return a.errorf("%s: moving the existing file aside to %s: %w", p, backup, err)
	}
	a.recs.replaced[p] = replacedFile{backup: backup, sha256: live}
	return nil
}

func (a *hostApply) upload(ctx context.Context, f bundleFile) error {
	src, err := a.h.source(f)
	if err != nil {
		return a.errorf("%s: %w", f.Path, err)
	}
	defer src.Close()
	a.rc.Progress(a.addr, fmt.Sprintf("copying %s (%s)", path.Base(f.Path), resources.HumanBytes(f.Size)))
	if err := a.conn.Upload(ctx, src, f.Size, f.Path, f.fileMode(), f.SHA256); err != nil {
		return a.errorf("copying %s: %w", f.Path, err)
	}
	a.done[f.Path] = f
	// The stat right after the copy, not at the end of the apply: a change
	// made in between would otherwise be recorded as eggo's content. A
	// failed stat only costs a hash at the next refresh.
	out, err := a.run(ctx, quickStatCmd(f.Path), false)
	if err != nil {
		a.rc.Log.Debug("no quick-check stat after copying", "host", a.node, "path", f.Path, "error", err)
	}
	a.setStat(f.Path, out)
	return nil
}

// setStat records the quick-check stat a command printed for p, if it
// printed a usable one.
func (a *hostApply) setStat(p, out string) {
	if st := strings.TrimSpace(out); validStat(st) {
		a.stats[p] = st
	} else {
		delete(a.stats, p)
	}
}

// mkdirAll creates the missing directories above and at dir one at a
// time, top-down, recording each so Delete removes exactly those.
func (a *hostApply) mkdirAll(ctx context.Context, dir string) error {
	var missing []string
	for d := dir; d != "/" && d != "." && !a.dirExists[d]; d = path.Dir(d) {
		missing = append(missing, d)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		d := missing[i]
		// Another run (or node on the same machine) may have made it since
		// the probe: an existing directory is as good as a new one.
		if _, err := a.run(ctx, "mkdir -- "+shell.Quote(d)+" 2>/dev/null || test -d "+shell.Quote(d), true); err != nil {
			return a.errorf("creating directory %s: %w", d, err)
		}
		a.dirExists[d] = true
		a.recs.dirs[d] = true
	}
	return nil
}

// removeStale undoes what eggo did for files that left the bundle: its
// own files are removed, originals it moved aside come back, files that
// were there before eggo stay. Directories it created that no longer
// hold anything of eggo's are removed when empty.
func (a *hostApply) removeStale(ctx context.Context, priorFiles map[string]bundleFile) error {
	for _, p := range hostSortedKeys(priorFiles) {
		if _, wanted := a.done[p]; wanted {
			continue
		}
		if rf, ok := a.recs.replaced[p]; ok {
			if _, err := a.run(ctx, "mv -f -- "+shell.Quote(rf.backup)+" "+shell.Quote(p), true); err != nil {
				return a.errorf("restoring the original %s from %s: %w", p, rf.backup, err)
			}
			delete(a.recs.replaced, p)
			delete(a.recs.files, p)
		} else if a.recs.files[p] {
			if _, err := a.run(ctx, "rm -f -- "+shell.Quote(p), true); err != nil {
				return a.errorf("removing %s: %w", p, err)
			}
			delete(a.recs.files, p)
		}
		a.removed[p] = true
	}
	if len(a.removed) == 0 {
		return nil
	}
	needed := map[string]bool{}
	for p := range a.recs.files {
		needed[path.Dir(p)] = true
	}
	for _, rf := range a.recs.replaced {
		needed[path.Dir(rf.backup)] = true
	}
	for _, d := range ancestorDirs(hostSortedKeys(needed)) {
		needed[d] = true
	}
	var unused []string
	for _, d := range a.recs.dirsDeepestFirst() {
		if !needed[d] {
			unused = append(unused, d)
		}
	}
	kept, err := a.removeDirs(ctx, unused)
	if err != nil {
		return a.errorf("removing directories: %w", err)
	}
	for _, d := range unused {
		if !kept[d] {
			delete(a.recs.dirs, d)
		}
	}
	return nil
}

// removeDirs removes dirs (deepest first) with rmdir, never rm -r: a
// directory someone else put files into stays, with a warning.
func (a *hostApply) removeDirs(ctx context.Context, dirs []string) (kept map[string]bool, err error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	out, err := resources.RunScript(ctx, a.conn, rmdirScript(dirs), true)
	if err != nil {
		return nil, err
	}
	kept = parseKept(dirs, out)
	for _, d := range hostSortedKeys(kept) {
		a.rc.Log.Warn("directory eggo created is not empty; leaving it", "host", a.node, "dir", d)
	}
	return kept, nil
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
				if st, ok := a.priorStats[f.Path]; ok && f.Drift == "" {
					stats[f.Path] = st
				}
			}
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
