package hookrun

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LoadSource reads a hook's scripts from path: a file is one script; a
// directory gives its regular top-level files in lexical order (a symlink
// to a regular file counts as one). Sub-directories and hidden files
// (.gitkeep, editor swap files) are skipped; anything else that is not a
// regular file is an error naming it.
func LoadSource(path string) ([]Script, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("hook source %s: %w", path, err)
	}
	if info.Mode().IsRegular() {
		s, err := readScript(path)
		if err != nil {
			return nil, err
		}
		return []Script{s}, nil
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("hook source %s: not a regular file or a directory", path)
	}
	entries, err := os.ReadDir(path) // sorted by name
	if err != nil {
		return nil, fmt.Errorf("hook source %s: %w", path, err)
	}
	var scripts []Script
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(path, e.Name())
		fi, err := os.Stat(p) // follows a symlink
		if err != nil {
			return nil, fmt.Errorf("hook source %s: %w", p, err)
		}
		if fi.IsDir() {
			continue
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("hook source %s: not a regular file", p)
		}
		s, err := readScript(p)
		if err != nil {
			return nil, err
		}
		scripts = append(scripts, s)
	}
	if len(scripts) == 0 {
		return nil, fmt.Errorf("hook source %s: the directory holds no scripts", path)
	}
	return scripts, nil
}

func readScript(p string) (Script, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return Script{}, fmt.Errorf("hook source %s: %w", p, err)
	}
	return Script{Name: filepath.Base(p), Content: b}, nil
}

// CheckFiles is the plan-time check of a hook's files: every src must be a
// regular file (or a symlink to one) and every dst an absolute path.
func CheckFiles(files []FileCopy) error {
	for _, f := range files {
		if _, err := regularFile(f.Src); err != nil {
			return err
		}
		if !filepath.IsAbs(f.Dst) || !strings.HasPrefix(f.Dst, "/") {
			return fmt.Errorf("hook file %s: destination %q is not an absolute path", f.Src, f.Dst)
		}
	}
	return nil
}

func regularFile(src string) (os.FileInfo, error) {
	fi, err := os.Stat(src)
	if err != nil {
		return nil, fmt.Errorf("hook file %s: %w", src, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("hook file %s: not a regular file", src)
	}
	return fi, nil
}
