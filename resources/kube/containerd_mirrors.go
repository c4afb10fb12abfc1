package kube

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/eggo-project/eggo/resources"
)

// containerd finds a registry's mirrors in its registry host directory
// (config_path, containerd's docs/hosts.md): one directory per registry
// host, holding a hosts.toml. eggo writes them with the rest of
// containerd's configuration, in config_dir/containerd/certs.d, as files
// of the containerd service: a change plans an update that rewrites them
// and restarts containerd, and a registry dropped from registry_mirrors
// has its file removed. config.toml names the directory only when the
// cluster has mirrors: a cluster without them keeps its configuration byte
// for byte.

// containerdHostsDirName is the registry host directory under containerd's
// own configuration directory.
const containerdHostsDirName = "certs.d"

// containerdHostsDir is containerd's config_path.
func containerdHostsDir(c *resources.Cluster) string {
	return path.Join(c.ConfigDir, resources.CompContainerd, containerdHostsDirName)
}

// containerdHostsFiles are the hosts.toml of every registry with mirrors,
// in host order.
func containerdHostsFiles(c *resources.Cluster) []serviceFile {
	dir := containerdHostsDir(c)
	var out []serviceFile
	for _, host := range slices.Sorted(maps.Keys(c.Runtime.RegistryMirrors)) {
		out = append(out, serviceFile{Path: path.Join(dir, host, "hosts.toml"), Mode: "0644",
			Content: hostsTOML(host, c.Runtime.RegistryMirrors[host])})
	}
	return out
}

// hostsTOML is one registry's hosts.toml: each mirror a host tried in its
// order, for pulls only (pull and resolve; containerd never pushes
// through a mirror). It names no server, so containerd falls back on the
// registry itself (registry-1.docker.io for docker.io, the registry asked
// for under _default). A mirror's scheme is what containerd speaks to it:
// plain HTTP for http://.
func hostsTOML(host string, mirrors []string) string {
	var b strings.Builder
	if host == resources.DefaultRegistry {
		b.WriteString("# The mirrors of every registry without a directory here (eggo), tried in order before it.\n")
	} else {
		fmt.Fprintf(&b, "# The mirrors of %s (eggo), tried in order before it.\n", host)
	}
	for _, m := range mirrors {
		fmt.Fprintf(&b, "\n[host.%s]\n  capabilities = [\"pull\", \"resolve\"]\n", tomlString(m))
	}
	return b.String()
}

// containerdRegistryConfig is the part of config.toml that points the CRI
// plugin (its images plugin in schema 3) at the registry host directory;
// "" without mirrors.
func containerdRegistryConfig(c *resources.Cluster, schema int) string {
	if len(c.Runtime.RegistryMirrors) == 0 {
		return ""
	}
	if schema >= 3 {
		return "[plugins.'io.containerd.cri.v1.images'.registry]\n  config_path = " + tomlString(containerdHostsDir(c)) + "\n\n"
	}
	return "  [plugins.\"io.containerd.grpc.v1.cri\".registry]\n    config_path = " + tomlString(containerdHostsDir(c)) + "\n"
}

// tomlString is s as a TOML basic string. What eggo writes is checked to
// hold none of the characters escaped here; the escapes keep a TOML file
// whole whatever it is given.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < ' ' || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// isContainerdHostsFile reports whether p is a registry's hosts.toml as
// containerdHostsFiles places it (config_dir/containerd/certs.d/HOST/
// hosts.toml): for the record check.
func isContainerdHostsFile(p string) bool {
	hostDir := path.Dir(p)
	certs := path.Dir(hostDir)
	return path.Base(p) == "hosts.toml" && path.Base(certs) == containerdHostsDirName &&
		path.Base(path.Dir(certs)) == resources.CompContainerd && resources.RegistryHostError(path.Base(hostDir)) == ""
}

// containerdHostsConfigDir is the config_dir of a hosts.toml
// (isContainerdHostsFile).
func containerdHostsConfigDir(p string) string {
	return path.Dir(path.Dir(path.Dir(path.Dir(p))))
}
