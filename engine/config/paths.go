package config

import (
	"fmt"
	"os"
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
