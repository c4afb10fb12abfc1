package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/eggo-project/eggo/resources"
)

// bundleFile is one file of a package bundle as the files attribute holds
// it. The bundle mirrors the target's root: packages/amd64/usr/bin/x is
// installed as /usr/bin/x.
type bundleFile struct {
	Path   string // absolute path on the host
	SHA256 string // hex; "" when refresh found the file missing
	Mode   string // octal permission bits, "0755"
	Size   int64
	Drift  string // set by Read: "modified" or "missing"; "" when as recorded
}

// Values of bundleFile.Drift.
const (
	driftModified = "modified"
	driftMissing  = "missing"
)

func (f bundleFile) attr() map[string]any {
	m := map[string]any{"path": f.Path, "sha256": f.SHA256, "mode": f.Mode, "size": float64(f.Size)}
	if f.Drift != "" {
		m["drift"] = f.Drift
	}
	return m
}

func (f bundleFile) fileMode() fs.FileMode {
	m, err := strconv.ParseUint(f.Mode, 8, 32)
	if err != nil {
		return 0o644
	}
	return fs.FileMode(m) & fs.ModePerm
}

// parseFiles reads a files attribute (from config or state).
func parseFiles(v any) []bundleFile {
	list, _ := v.([]any)
	out := make([]bundleFile, 0, len(list))
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		out = append(out, bundleFile{
			Path:   resources.AttrString(m["path"]),
			SHA256: resources.AttrString(m["sha256"]),
			Mode:   resources.AttrString(m["mode"]),
			Size:   int64(resources.AttrInt(m["size"])),
			Drift:  resources.AttrString(m["drift"]),
		})
	}
	return out
}

func filesAttr(files []bundleFile) []any {
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	out := make([]any, len(files))
	for i, f := range files {
		out[i] = f.attr()
	}
	return out
}

// archBundle is one arch's package bundle as one Expand read it, and the
// files attribute of every role set that asked for one: nodes with the same
// roles share one list, so 1000 workers cost one filtering, not 1000.
type archBundle struct {
	files  []bundleFile // sorted by path
	claims []roleSet    // claims[i]: the roles that need files[i]; 0 for every node
	lists  map[roleSet][]any
}

// filesFor is the files attribute of a node with roles: the files its
// roles claim plus those no role claims. Shared; read-only like all Attrs.
func (b *archBundle) filesFor(roles roleSet) []any {
	if l, ok := b.lists[roles]; ok {
		return l
	}
	picked := make([]bundleFile, 0, len(b.files))
	for i, f := range b.files {
		if roles.wants(b.claims[i]) {
			picked = append(picked, f)
		}
	}
	l := filesAttr(picked)
	b.lists[roles] = l
	return l
}

// bundleFiles walks packages/<arch>, hashes every file once, remembers
// where each content lives locally and which roles claim each file. No
// packages directory at all means no bundle; a missing arch is an error.
// The directories in unused (resources.UnusedBundleDirs: images the
// cluster's implementation never runs) are left out.
func (h *Host) bundleFiles(packages, arch string, unused []string) (*archBundle, error) {
	b := &archBundle{lists: map[roleSet][]any{}}
	if packages == "" {
		return b, nil
	}
	root := filepath.Join(packages, arch)
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("package bundle directory %s does not exist", root)
	}
	var files []bundleFile
	sources := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		st, err := os.Stat(p) // follows a symlink to the file it names
		if err != nil {
			return err
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s: only regular files (or symlinks to them) can be in a package bundle", p)
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(unused, func(dir string) bool { return resources.Claims(dir, filepath.ToSlash(rel)) }) {
			return nil
		}
		sum, err := h.hashFile(p)
		if err != nil {
			return err
		}
		sources[sum] = p
		files = append(files, bundleFile{
			Path:   path.Join("/", filepath.ToSlash(rel)),
			SHA256: sum,
			Mode:   fmt.Sprintf("%04o", st.Mode().Perm()),
			Size:   st.Size(),
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading package bundle %s: %w", root, err)
	}
	h.mu.Lock()
	for sum, p := range sources {
		h.sources[sum] = p
	}
	h.mu.Unlock()
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	b.files = files
	b.claims = make([]roleSet, len(files))
	for i, f := range files {
		b.claims[i] = h.claimOf(f.Path)
	}
	return b, nil
}

// claimOf is the set of roles that need the file installed at target.
func (h *Host) claimOf(target string) roleSet {
	rel, ok := strings.CutPrefix(target, strings.TrimSuffix(h.root, "/")+"/")
	if !ok {
		return 0
	}
	return claimedBy(rel)
}

// hashFile is the content digest of a bundle file (resources.FileSHA256:
// once per process, shared with the services that version themselves by
// their program); hashed counts the lookups.
func (h *Host) hashFile(p string) (string, error) {
	h.hashed.Add(1)
	return resources.FileSHA256(p)
}

// source opens the local file with the given content for copying.
func (h *Host) source(f bundleFile) (*os.File, error) {
	h.mu.Lock()
	p, ok := h.sources[f.SHA256]
	h.mu.Unlock()
	if !ok {
		return nil, errors.New("no local file with this content: the package bundle was not read in this run " +
			"or changed since the plan")
	}
	return os.Open(p)
}
