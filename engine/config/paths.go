package config

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// localPath resolves a path on this machine as written in the
// configuration: "~/" is the user's home, a relative path is relative to
// the configuration directory (not the working directory, so a definition
// means the same wherever eggo runs from). The result is absolute.
func (l *loader) localPath(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("the path is empty")
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot expand %q: %v", p, err)
		}
		p = filepath.Join(home, p[1:])
	} else if strings.HasPrefix(p, "~") {
		return "", fmt.Errorf("cannot expand %q: only \"~/\" (the current user's home) is supported", p)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(l.dir, p)
	}
	return filepath.Abs(p)
}

// nodePathProblem says what is wrong with p as a path on a node ("" when
// nothing): it must be absolute and clean, and made of letters, digits and
// . _ - + / @ = , : only. Such a path means the same to every shell and unit
// file it reaches, so no quoting mistake anywhere can turn it into a command
// ("/etc/kubernetes;reboot", "$(…)", a space that splits it).
func nodePathProblem(p string) string {
	switch {
	case !path.IsAbs(p):
		return "it must be an absolute path"
	case path.Clean(p) != p:
		return fmt.Sprintf("it must be written clean (%q)", path.Clean(p))
	}
	for _, r := range p {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-+/@=,:", r)
		if !ok {
			return fmt.Sprintf("it holds %q; a path on the nodes may use letters, digits and . _ - + / @ = , : only", r)
		}
	}
	return ""
}
