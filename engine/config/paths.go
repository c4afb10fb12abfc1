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
			return "", fmt.Errorf("cannot expand %s: %v", quoted(p), err)
		}
		p = filepath.Join(home, p[1:])
	} else if strings.HasPrefix(p, "~") {
		return "", fmt.Errorf("cannot expand %s: only \"~/\" (the current user's home) is supported", quoted(p))
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
		return fmt.Sprintf("it must be written clean (%s)", quoted(path.Clean(p)))
	}
	for _, r := range p {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-+/@=,:", r)
		if !ok {
			return fmt.Sprintf("it holds %q; a path on the nodes may use letters, digits and . _ - + / @ = , : only", r)
		}
	}
	return ""
}

// systemDirs are directories of the nodes' own system. eggo writes its
// components' files under config_dir/COMPONENT (etcd, kubelet, containerd,
// manifests, …) and removes them when a node leaves: as config_dir, one
// of these would have eggo overwrite, then delete, the system's own files
// (/etc/containerd/config.toml for config_dir = "/etc").
var systemDirs = map[string]bool{
	"/": true, "/bin": true, "/boot": true, "/dev": true, "/etc": true, "/home": true, "/lib": true,
	"/lib32": true, "/lib64": true, "/libx32": true, "/media": true, "/mnt": true, "/opt": true, "/proc": true,
	"/root": true, "/run": true, "/sbin": true, "/srv": true, "/sys": true, "/tmp": true, "/usr": true, "/var": true,
	"/usr/bin": true, "/usr/sbin": true, "/usr/lib": true, "/usr/lib64": true, "/usr/libexec": true,
	"/usr/include": true, "/usr/share": true, "/usr/src": true, "/usr/local": true, "/usr/local/bin": true,
	"/usr/local/sbin": true, "/usr/local/lib": true, "/usr/local/share": true, "/var/lib": true, "/var/log": true,
	"/var/cache": true, "/var/spool": true, "/var/tmp": true, "/var/run": true, "/etc/systemd": true,
	"/etc/systemd/system": true, "/lib/systemd": true, "/lib/systemd/system": true, "/usr/lib/systemd": true,
	"/usr/lib/systemd/system": true, "/etc/default": true, "/etc/ssh": true, "/etc/ssl": true, "/etc/pki": true,
	"/etc/sysconfig": true,
}

// volatileDirs hold no files that last: memory file systems emptied at
// boot, and the kernel's views. A cluster's certificates and kubeconfigs
// there would be gone after the first reboot.
var volatileDirs = []string{"/proc", "/sys", "/dev", "/run", "/var/run", "/tmp", "/var/tmp"}

// configDirProblem says what is wrong with p as config_dir ("" when
// nothing): nodePathProblem's rules, and not a system directory or one
// whose files do not last.
func configDirProblem(p string) string {
	if why := nodePathProblem(p); why != "" {
		return why
	}
	if p == "/" {
		return "that is the root directory, and eggo would write its components' directories (/etcd, /kubelet, …) into it and remove them when a node leaves"
	}
	if systemDirs[p] {
		return "that is a system directory, and eggo would write its components' directories (" + path.Join(p, "containerd") +
			", " + path.Join(p, "kubelet") + ", …) into it and remove them when a node leaves"
	}
	for _, v := range volatileDirs {
		if p == v || strings.HasPrefix(p, v+"/") {
			return "files under " + v + " do not survive a reboot, and the cluster's certificates and kubeconfigs must"
		}
	}
	return ""
}
