package kube

import (
	"fmt"
	"path"

	"github.com/eggo-project/eggo/resources"
)

// containerd runs the node's containers; their network is flannel's
// (FlannelCNIConfigPath), the same configuration on every Node: built
// once per plan, only its rolling unit is the node's.
func containerd(c *resources.Cluster, n resources.Node) componentSpec {
	s := resources.Shared(c, sharedKey("containerd"), func() componentSpec { return containerdSpec(c) })
	s.roll = runtimeRoll(c, n)
	return s
}

func containerdSpec(c *resources.Cluster) componentSpec {
	dir := path.Join(c.ConfigDir, resources.CompContainerd)
	cfg := path.Join(dir, "config.toml")
	config := containerdConfig(c)
	return componentSpec{
		service: service{
			Component: resources.CompContainerd,
			UnitName:  resources.CompContainerd + ".service",
			Unit: renderUnit(unitOptions{description: "containerd container runtime (eggo)", exec: "/usr/local/bin/containerd",
				args: flags(c, resources.CompContainerd, map[string]string{"config": cfg}), typ: "notify",
				extra: []string{"ExecStartPre=-/sbin/modprobe overlay", "Delegate=yes", "KillMode=process", "TasksMax=infinity", "OOMScoreAdjust=-999"}}),
			// The registries' mirrors after: the CNI network is Files[1].
			Files: append([]serviceFile{
				{Path: cfg, Mode: "0644", Content: config},
				{Path: FlannelCNIConfigPath, Mode: "0644", Content: flannelCNIConfig},
			}, containerdHostsFiles(c)...),
			DataDirs:      dataDirs(resources.CompContainerd),
			PostStart:     containerdPostStart,
			Health:        "ctr version >/dev/null",
			HealthTimeout: DefaultHealthTimeout,
			Cleanup:       containerdCleanup(c.Runtime.CgroupRootPerNode),
			Version:       c.KubernetesVersion,
		},
		program: containerdProgram,
	}
}

// containerdConfig is containerd's config.toml in the schema of the
// minor's containerd (resources.KubernetesMinor): 2 for containerd 1.x,
// 3 for containerd 2, whose CRI plugin is two (images and runtime) and
// takes the sandbox image as a pinned image. With registry mirrors, the
// CRI plugin reads them from containerdHostsDir (containerd_mirrors.go).
func containerdConfig(c *resources.Cluster) string {
	m := c.Minor()
	head := func(schema int) string {
		return fmt.Sprintf(`version = %d
root = "/var/lib/containerd"
state = "/run/containerd"

[grpc]
  address = "/run/containerd/containerd.sock"

`, schema)
	}
	if m.ContainerdMajor >= 2 {
		return head(3) + fmt.Sprintf(`[plugins.'io.containerd.cri.v1.images'.pinned_images]
  sandbox = %q

%s[plugins.'io.containerd.cri.v1.runtime']
  restrict_oom_score_adj = %t
  [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ["/opt/cni/bin"]
    conf_dir = "/etc/cni/net.d"
`, m.Pause, containerdRegistryConfig(c, 3), c.Runtime.RestrictOOMScoreAdj)
	}
	return head(2) + fmt.Sprintf(`[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %q
  restrict_oom_score_adj = %t
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/opt/cni/bin"
    conf_dir = "/etc/cni/net.d"
%s`, m.Pause, c.Runtime.RestrictOOMScoreAdj, containerdRegistryConfig(c, 2))
}

// containerdPostStart imports the images the bundle ships (the sandbox
// image, add-ons' images): no registry needed.
const containerdPostStart = `for f in ` + BundleImageDir + `/*.tar; do
  [ -f "$f" ] || continue
  ctr -n k8s.io images import "$f" >/dev/null || { echo "importing $f failed" >&2; exit 1; }
done`

// containerdCleanup is what goes with containerd. Containers outlive it
// (KillMode=process); when it goes for good, so do they, their mounts and
// their network. The containers are the shims' children: kill those, then
// the shims (never by cgroup: a cgroup tree may be shared with other
// machines, and a pid of another namespace reads as 0). With cgroupRoot
// (runtime.cgroup_root_per_node), the kubelet's cgroup root goes too, once
// the containers are gone (a memory cgroup may stay busy a moment after
// its last process).
func containerdCleanup(cgroupRoot bool) string {
	root := ""
	if cgroupRoot {
		root = cgroupRootCleanup
	}
	return `shims=$(pgrep -d, -f containerd-shim-runc-v2)
if [ -n "$shims" ]; then pkill -9 -P "$shims"; fi
pkill -9 -f containerd-shim-runc-v2
sleep 1
awk '{print $2}' /proc/mounts | grep -E '^/run/containerd/|^/var/lib/containerd/|^/run/netns/cni-' | sort -r | xargs -r -n1 umount -l 2>/dev/null
for ns in $(ip netns list 2>/dev/null | awk '/^cni-/{print $1}'); do ip netns delete "$ns"; done
ip link delete cni0 2>/dev/null
rm -rf /run/containerd
` + root + `true`
}

// cgroupRootCleanup removes the kubelet's own cgroup root (nodeCgroupRoot)
// in every hierarchy, deepest first.
const cgroupRootCleanup = `root=eggo-$(cat /etc/machine-id)
for try in 1 2 3 4 5; do
  left=
  for d in /sys/fs/cgroup/*/"$root"; do [ -d "$d" ] && { find "$d" -depth -type d -exec rmdir {} + 2>/dev/null || left=1; }; done
  [ -z "$left" ] && break
  sleep 1
done
`
