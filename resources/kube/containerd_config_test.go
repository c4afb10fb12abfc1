package kube

import (
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// containerd's configuration follows the minor's containerd: schema 2 with
// the CRI plugin's sandbox_image for 1.31's containerd 1.6, schema 3 with
// the sandbox as a pinned image of the CRI images plugin for containerd 2.
func TestContainerdConfigFollowsTheMinor(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    []string
		notWant string
	}{
		{"1.31.4", []string{"version = 2\n", `sandbox_image = "registry.k8s.io/pause:3.10"`, `[plugins."io.containerd.grpc.v1.cri".cni]`, `bin_dir = "/opt/cni/bin"`}, "cri.v1"},
		{"1.34.4", []string{"version = 2\n", `sandbox_image = "registry.k8s.io/pause:3.10.1"`}, "cri.v1"},
		{"1.36.5", []string{"version = 3\n", "[plugins.'io.containerd.cri.v1.images'.pinned_images]\n  sandbox = \"registry.k8s.io/pause:3.10.2\"",
			"[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]", `bin_dirs = ["/opt/cni/bin"]`}, "grpc.v1.cri"},
		{"1.37.2", []string{"version = 3\n", `sandbox = "registry.k8s.io/pause:3.10.2"`}, "sandbox_image"},
	} {
		c := &resources.Cluster{KubernetesVersion: tc.version, ConfigDir: "/etc/kubernetes"}
		got := containerdConfig(c)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: containerd's config lacks %q:\n%s", tc.version, w, got)
			}
		}
		if strings.Contains(got, tc.notWant) {
			t.Errorf("%s: containerd's config has %q, another schema's:\n%s", tc.version, tc.notWant, got)
		}
	}
}
