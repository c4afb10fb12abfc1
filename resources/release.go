package resources

import (
	"fmt"
	"strconv"
	"strings"
)

// KubernetesMinor is what goes with one Kubernetes minor: the images its
// release was tested with (kubeadm's constants and build/dependencies.yaml
// of its newest patch the module proxy serves) and the container runtime
// its bundle carries. One table, which every component reads for what
// differs between minors — not a copy of a component per version.
type KubernetesMinor struct {
	Minor   int    // 31 for 1.31
	Pause   string // the sandbox image
	Etcd    string // static-pod etcd's image (kubeadm's tag)
	CoreDNS string // the CoreDNS add-on's image
	// ContainerdMajor is the containerd of the minor's bundle, which
	// decides the schema of its configuration: 1 is Debian bookworm's 1.6
	// (schema 2), the last that runs up to 1.34; 2 is containerd 2 built
	// from Go source (schema 3), which 1.35 on need.
	ContainerdMajor int
}

// kubernetesMinors are the minors eggo deploys, oldest first: 1.31, and
// the ones between it and today's (1.35–1.37) that a cluster made at 1.31
// upgrades through, one at a time as the skew policy requires.
var kubernetesMinors = []KubernetesMinor{
	{Minor: 31, Pause: "registry.k8s.io/pause:3.10", Etcd: "registry.k8s.io/etcd:3.5.15-0", CoreDNS: "registry.k8s.io/coredns/coredns:v1.11.3", ContainerdMajor: 1},
	{Minor: 32, Pause: "registry.k8s.io/pause:3.10", Etcd: "registry.k8s.io/etcd:3.5.24-0", CoreDNS: "registry.k8s.io/coredns/coredns:v1.11.3", ContainerdMajor: 1},
	{Minor: 33, Pause: "registry.k8s.io/pause:3.10", Etcd: "registry.k8s.io/etcd:3.5.24-0", CoreDNS: "registry.k8s.io/coredns/coredns:v1.12.0", ContainerdMajor: 1},
	{Minor: 34, Pause: "registry.k8s.io/pause:3.10.1", Etcd: "registry.k8s.io/etcd:3.6.5-0", CoreDNS: "registry.k8s.io/coredns/coredns:v1.12.1", ContainerdMajor: 1},
	{Minor: 35, Pause: "registry.k8s.io/pause:3.10.1", Etcd: "registry.k8s.io/etcd:3.6.6-0", CoreDNS: "registry.k8s.io/coredns/coredns:v1.13.1", ContainerdMajor: 2},
	{Minor: 36, Pause: "registry.k8s.io/pause:3.10.2", Etcd: "registry.k8s.io/etcd:3.6.8-0", CoreDNS: "registry.k8s.io/coredns/coredns:v1.14.2", ContainerdMajor: 2},
	{Minor: 37, Pause: "registry.k8s.io/pause:3.10.2", Etcd: "registry.k8s.io/etcd:3.7.0-0", CoreDNS: "registry.k8s.io/coredns/coredns:v1.14.6", ContainerdMajor: 2},
}

// KubernetesVersion is a release version, such as 1.31.4.
type KubernetesVersion struct{ Major, Minor, Patch int }

// ParseKubernetesVersion reads "1.31.4" (or "v1.31.4", or with a
// pre-release suffix, which it drops).
func ParseKubernetesVersion(v string) (KubernetesVersion, bool) {
	v, _, _ = strings.Cut(strings.TrimPrefix(v, "v"), "-")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return KubernetesVersion{}, false
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 {
			return KubernetesVersion{}, false
		}
		n[i] = x
	}
	return KubernetesVersion{n[0], n[1], n[2]}, true
}

// Less orders versions.
func (v KubernetesVersion) Less(o KubernetesVersion) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor < o.Minor
	}
	return v.Patch < o.Patch
}

// MinorOf is the table's row of a Kubernetes version; the error names the
// minors eggo deploys.
func MinorOf(version string) (KubernetesMinor, error) {
	v, ok := ParseKubernetesVersion(version)
	if ok && v.Major == 1 {
		for _, m := range kubernetesMinors {
			if m.Minor == v.Minor {
				return m, nil
			}
		}
	}
	first, last := kubernetesMinors[0].Minor, kubernetesMinors[len(kubernetesMinors)-1].Minor
	return KubernetesMinor{}, fmt.Errorf("eggo deploys Kubernetes 1.%d to 1.%d, not %s", first, last, version)
}

// Minor is the cluster's row of the table. The language refused a
// kubernetes_version without one, so only a cluster a test builds by hand
// can lack it: it gets the zero row, with no images.
func (c *Cluster) Minor() KubernetesMinor {
	m, _ := MinorOf(c.KubernetesVersion)
	return m
}
