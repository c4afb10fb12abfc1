package host

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// Delete undoes exactly what the host's records say eggo did: it removes
// the files eggo created, puts back the originals it moved aside, then
// removes the directories it created, deepest first, with rmdir only.
// Files that were there before eggo came are never touched.
func (h *Host) Delete(ctx context.Context, rc *resources.RunContext, prior resources.Object) (resources.Attrs, error) {
	recs := parseRecords(prior.Attrs)
	if recs.empty() {
		return nil, nil // nothing of eggo's is on the host
	}
	node := resources.AttrOr(prior.Node, resources.AttrString(prior.Attrs[hostName]))
	where := fmt.Sprintf("%s (%s)", prior.Addr, resources.AttrString(prior.Attrs[hostAddress]))
	conn, err := rc.Connect(ctx, node, prior.Attrs)
	if err != nil {
		return prior.Attrs, fmt.Errorf("%s: cannot delete: %w", where, err)
	}

	files := slices.Sorted(maps.Keys(recs.files))
	replaced := slices.Sorted(maps.Keys(recs.replaced))
	dirs := recs.dirsDeepestFirst()
	out, err := resources.RunScript(ctx, conn, deleteScript(recs, files, replaced, dirs), true)
	if err != nil {
		return prior.Attrs, fmt.Errorf("%s: deleting: %w", where, err)
	}
	left, problems := whatIsLeft(recs, files, replaced, out)
	kept := parseKept(dirs, out)
	for _, d := range dirs {
		if !kept[d] {
			continue
		}
		if len(problems) > 0 {
			left.dirs[d] = true // may empty once the problems are fixed; try again then
		} else {
			rc.Log.Warn("directory eggo created is not empty; leaving it", "host", node, "dir", d)
		}
	}
	if len(problems) == 0 {
		return nil, nil
	}
	rest := make(resources.Attrs, len(prior.Attrs))
	for k, v := range prior.Attrs {
		rest[k] = v
	}
	rest[hostCreated] = left.createdAttr()
	rest[hostReplaced] = left.replacedAttr()
	return rest, fmt.Errorf("%s: delete incomplete: %s", where, strings.Join(problems, "; "))
}

// rmdirScript removes each directory if it is empty, printing "@g I" when
// it is gone and "@k I" when it had to be kept.
func rmdirScript(dirs []string) string {
	var b strings.Builder
	for i, d := range dirs {
		q := shell.Quote(d)
		fmt.Fprintf(&b, "if [ -d %s ]; then if rmdir -- %s 2>/dev/null; then echo '@g %d'; else echo '@k %d'; fi; else echo '@g %d'; fi\n", q, q, i, i, i)
	}
	return b.String()
}

// parseKept reads which directories rmdirScript kept. A directory the
// output does not mention (the script died) counts as kept.
func parseKept(dirs []string, out string) map[string]bool {
	marks := parseMarks(out)
	kept := map[string]bool{}
	for i, d := range dirs {
		if !marks["@g "+strconv.Itoa(i)] {
			kept[d] = true
		}
	}
	return kept
}

func parseMarks(out string) map[string]bool {
	marks := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "@") {
			marks[strings.TrimSpace(line)] = true
		}
	}
	return marks
}

// deleteScript removes the recorded files (and their staging files), puts
// back each original eggo moved aside, and removes the directories it
// created if they are empty. It prints "@r I" per removed file, "@m I" per
// restored original and "@n I" when an original's backup is missing.
func deleteScript(recs *hostRecords, files, replaced, dirs []string) string {
	var b strings.Builder
	for _, p := range append(append([]string(nil), files...), replaced...) {
		// A copy cut off mid-way leaves its staging file behind.
		fmt.Fprintf(&b, "rm -f -- %s\n", shell.Quote(providers.TempName(p)))
	}
	for i, p := range files {
		if _, ok := recs.replaced[p]; ok {
			continue // the restore below puts the original over it
		}
		fmt.Fprintf(&b, "rm -f -- %s && echo '@r %d'\n", shell.Quote(p), i)
	}
	for i, p := range replaced {
		bk := shell.Quote(recs.replaced[p].backup)
		// No backup but the original still in place: a run recorded the
		// move (write-ahead) and stopped before making it.
		orig := shell.Quote(p)
		fmt.Fprintf(&b, "if [ -f %s ]; then mv -f -- %s %s && echo '@m %d'; elif [ -f %s ] && [ \"$(sha256sum < %s | cut -c1-64)\" = %s ]; then echo '@m %d'; else echo '@n %d'; fi\n",
			bk, bk, orig, i, orig, orig, shell.Quote(recs.replaced[p].sha256), i, i)
	}
	b.WriteString(rmdirScript(dirs))
	b.WriteString(rmdirScript(dirs))
	return b.String()
}

// whatIsLeft reads the delete script's marks: the records of what is still
// on the host, and why.
func whatIsLeft(recs *hostRecords, files, replaced []string, out string) (*hostRecords, []string) {
	left := &hostRecords{dirs: map[string]bool{}, files: map[string]bool{}, replaced: map[string]replacedFile{}}
	var problems []string
	marks := parseMarks(out)
	for i, p := range files {
		if _, ok := recs.replaced[p]; !ok && !marks["@r "+strconv.Itoa(i)] {
			left.files[p] = true
			problems = append(problems, "could not remove "+p)
		}
	}
	for i, p := range replaced {
		if marks["@m "+strconv.Itoa(i)] {
			continue
		}
		left.replaced[p] = recs.replaced[p]
		if recs.files[p] {
			left.files[p] = true
		}
		if marks["@n "+strconv.Itoa(i)] {
			problems = append(problems, fmt.Sprintf("cannot restore the original %s: its backup %s is missing", p, recs.replaced[p].backup))
		} else {
			problems = append(problems, fmt.Sprintf("could not restore the original %s from %s", p, recs.replaced[p].backup))
		}
	}
	return left, problems
}
