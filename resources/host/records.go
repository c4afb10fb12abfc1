package host

import (
	"maps"
	"slices"
	"sort"

	"github.com/eggo-project/eggo/resources"
)

// hostRecords is what eggo did to a host, the only thing Delete acts on:
// the files and directories it created, and the files it moved aside.
// A file that already had the right content before eggo came is in none
// of them: it is not eggo's to delete.
type hostRecords struct {
	dirs     map[string]bool
	files    map[string]bool
	replaced map[string]replacedFile // by the path eggo wrote over
}

// replacedFile is an original eggo moved aside to backup.
type replacedFile struct {
	backup string
	sha256 string // of the original, as it was moved
}

// Values of a created entry's type.
const (
	createdFile = "file"
	createdDir  = "dir"
)

func parseRecords(a resources.Attrs) *hostRecords {
	r := &hostRecords{dirs: map[string]bool{}, files: map[string]bool{}, replaced: map[string]replacedFile{}}
	created, _ := a[hostCreated].([]any)
	for _, e := range created {
		m, _ := e.(map[string]any)
		p := resources.AttrString(m["path"])
		if p == "" {
			continue
		}
		if resources.AttrString(m["type"]) == createdDir {
			r.dirs[p] = true
		} else {
			r.files[p] = true
		}
	}
	replaced, _ := a[hostReplaced].([]any)
	for _, e := range replaced {
		m, _ := e.(map[string]any)
		if p := resources.AttrString(m["path"]); p != "" {
			r.replaced[p] = replacedFile{backup: resources.AttrString(m["backup"]), sha256: resources.AttrString(m["sha256"])}
		}
	}
	return r
}

func (r *hostRecords) empty() bool {
	return len(r.dirs) == 0 && len(r.files) == 0 && len(r.replaced) == 0
}

// createdAttr is the created attribute, sorted by path.
func (r *hostRecords) createdAttr() []any {
	type entry struct{ path, typ string }
	entries := make([]entry, 0, len(r.dirs)+len(r.files))
	for p := range r.dirs {
		entries = append(entries, entry{p, createdDir})
	}
	for p := range r.files {
		entries = append(entries, entry{p, createdFile})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].path < entries[j].path })
	out := make([]any, len(entries))
	for i, e := range entries {
		out[i] = map[string]any{"path": e.path, "type": e.typ}
	}
	return out
}

// replacedAttr is the replaced attribute, sorted by path.
func (r *hostRecords) replacedAttr() []any {
	out := make([]any, 0, len(r.replaced))
	for _, p := range slices.Sorted(maps.Keys(r.replaced)) {
		rf := r.replaced[p]
		out = append(out, map[string]any{"path": p, "backup": rf.backup, "sha256": rf.sha256})
	}
	return out
}

// dirsDeepestFirst orders created directories so each comes before its
// parent: a parent is a prefix of its children, so reverse order works.
func (r *hostRecords) dirsDeepestFirst() []string {
	dirs := slices.Sorted(maps.Keys(r.dirs))
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	return dirs
}

// clone copies the records.
func (r *hostRecords) clone() *hostRecords {
	c := &hostRecords{dirs: map[string]bool{}, files: map[string]bool{}, replaced: map[string]replacedFile{}}
	for k, v := range r.dirs {
		c.dirs[k] = v
	}
	for k, v := range r.files {
		c.files[k] = v
	}
	for k, v := range r.replaced {
		c.replaced[k] = v
	}
	return c
}
