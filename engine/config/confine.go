package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// Confinement (VarInput.ConfineFiles; always on in a GitOps Job) is for a
// configuration that is not trusted with the machine running eggo. What
// it reads here — file(), filebase64(), templatefile(), a hook's source
// and files, an add-on's manifests, the cluster's packages — must lie in
// the configuration directory or the bundle once symlinks are resolved,
// and nothing of it runs here (hooks_here.go). In a Job that keeps the
// mounted SSH key, age identity and ServiceAccount token out of its
// reach. The bundle is where the directory's own packages entry leads: a
// Job links it to the bundle volume. Paths eggo opens as credentials
// (private_key_file, known_hosts_file, a backend's files) are not
// confined: a Job names its mounted key that way, and eggo never shows
// what they hold.

// ConfineEnv turns confinement on for every command when set to anything
// but "", "0" or "false".
const ConfineEnv = "EGGO_CONFINE_FILES"

// confineRequested says whether in asks for confinement, by its field or
// its environment (where any entry that turns it on does).
func confineRequested(in VarInput) bool {
	if in.ConfineFiles {
		return true
	}
	for _, kv := range in.Env {
		if v, ok := strings.CutPrefix(kv, ConfineEnv+"="); ok && v != "" && v != "0" && v != "false" {
			return true
		}
	}
	return false
}

// confinement holds the directories a confined configuration may read.
type confinement struct {
	dir    string // the configuration directory, symlinks resolved
	bundle string // where its packages entry leads, resolved; "" when there is none
}

func newConfinement(dir string) (*confinement, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	c := &confinement{}
	if c.dir, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, err
	}
	if b, err := filepath.EvalSymlinks(filepath.Join(abs, "packages")); err == nil {
		c.bundle = b
	}
	return c, nil
}

// fileError is why a file of the configuration cannot be read: it names
// the path and never holds a value, so it is shown even when another
// argument of the function is sensitive (hideSensitiveErrors).
type fileError struct{ msg string }

func (e *fileError) Error() string { return e.msg }

func fileErrorf(format string, args ...any) error { return &fileError{fmt.Sprintf(format, args...)} }

// confined checks abs (localPath of p) against the confinement and
// returns the path to open: abs with its symlinks resolved. With
// confinement off it returns abs as it is.
func (l *loader) confined(p, abs string) (string, error) {
	c := l.confine
	if c == nil {
		return abs, nil
	}
	real, err := resolve(abs)
	if err != nil {
		return "", fileErrorf("cannot resolve %s: %s", clipPath(p), reason(err))
	}
	if within(real, c.dir) || c.bundle != "" && within(real, c.bundle) {
		return real, nil
	}
	via := ""
	if real != abs {
		via = fmt.Sprintf(" (it leads to %s)", clipPath(real))
	}
	return "", fileErrorf("%s%s lies outside the configuration directory and the bundle, and what the configuration reads is "+
		"confined to them (-confine-files, %s=1, and always in a GitOps Job)", clipPath(p), via, ConfineEnv)
}

// resolve is filepath.EvalSymlinks for a path that need not exist: what
// does not exist yet is judged by where its directory leads.
func resolve(p string) (string, error) {
	r, err := filepath.EvalSymlinks(p)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return r, err
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p, nil
	}
	rp, err := resolve(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(rp, filepath.Base(p)), nil
}

// within says whether p is root or lies under it; both are clean and
// absolute.
func within(p, root string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+"/")
}

// confinedPath is localPath then confined, for a path that eggo reads
// later (it keeps the path as written, resolved only for the check).
func (l *loader) confinedPath(p string) (string, error) {
	abs, err := l.localPath(p)
	if err != nil {
		return "", err
	}
	if _, err := l.confined(p, abs); err != nil {
		return "", err
	}
	return abs, nil
}
