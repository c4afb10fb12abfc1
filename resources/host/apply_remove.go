package host

import (
	"context"
	"maps"
	"path"
	"slices"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// removeStale undoes what eggo did for files that left the bundle: its
// own files are removed, originals it moved aside come back, files that
// were there before eggo stay. Directories it created that no longer
// hold anything of eggo's are removed when empty.
func (a *hostApply) removeStale(ctx context.Context, priorFiles map[string]bundleFile) error {
	for _, p := range slices.Sorted(maps.Keys(priorFiles)) {
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
	for _, d := range ancestorDirs(slices.Sorted(maps.Keys(needed))) {
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
	for _, d := range slices.Sorted(maps.Keys(kept)) {
		a.rc.Log.Warn("directory eggo created is not empty; leaving it", "host", a.node, "dir", d)
	}
	return kept, nil
}
