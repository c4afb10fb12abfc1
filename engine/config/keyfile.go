package config

import (
	"errors"
	"io/fs"
	"os"
	"sync"

	"github.com/hashicorp/hcl/v2"
)

// keyFileCheck is VarInput.CheckKeyFiles: the private keys checked so
// far, so a node block's instances, which share its connection block and
// are evaluated in parallel, report a missing key once.
type keyFileCheck struct {
	mu   sync.Mutex
	seen map[string]bool // attribute range and path
}

// first says whether path at rng is checked for the first time.
func (k *keyFileCheck) first(rng hcl.Range, path string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	key := rng.String() + "\x00" + path
	if k.seen[key] {
		return false
	}
	k.seen[key] = true
	return true
}

// keyFilePtr is pathPtr for a private key file: with
// VarInput.CheckKeyFiles the file must exist and be readable.
func (l *loader) keyFilePtr(dec *decoder, attrs hcl.Attributes, name string) *string {
	p := l.pathPtr(dec, attrs, name)
	if p == nil || l.keyFiles == nil {
		return p
	}
	rng := attrs[name].Expr.Range()
	if !l.keyFiles.first(rng, *p) {
		return p
	}
	summary, why := keyFileProblem(*p)
	if why != "" {
		dec.errorf(rng, summary,
			"%s is %s, which %s. eggo logs in to the nodes over SSH with it: correct the path (a relative one starts at "+
				"the configuration directory), or leave %s out to use ssh-agent or password_env.", name, clipPath(*p), why, name)
	}
	return p
}

// keyFileProblem says why the private key at path cannot be used ("" if
// it can). The file is opened to learn whether this user may read it, and
// closed: its content is not read here, let alone shown.
func keyFileProblem(path string) (summary, why string) {
	const unreadable = "Cannot read private key file"
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "Private key file not found", "does not exist"
	case err != nil:
		return unreadable, "cannot be read: " + reason(err)
	case st.IsDir():
		return unreadable, "is a directory"
	case !st.Mode().IsRegular():
		return unreadable, "is not a regular file"
	}
	f, err := os.Open(path)
	if err != nil {
		return unreadable, "cannot be read: " + reason(err)
	}
	f.Close()
	return "", ""
}

// reason is err without the path a *fs.PathError repeats.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
