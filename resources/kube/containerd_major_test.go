package kube

import (
	"context"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

func TestContainerdMajor(t *testing.T) {
	for _, tc := range []struct {
		version, kubelet string
		want             int
	}{
		{"containerd 1.6.20 sha256:0123456789abcdef", "", 1},
		{"containerd 2.3.7 sha256:0123456789abcdef", "1.34.2", 2}, // the release first
		{"containerd sha256:0123456789abcdef", "1.34.2", 1},       // a record before releases: the table's
		{"containerd sha256:0123456789abcdef", "1.35.4", 2},
		{"containerd sha256:0123456789abcdef", "", 0},
		{"1.31.4", "", 0}, // the operator's own containerd
	} {
		if got := containerdMajor(tc.version, tc.kubelet); got != tc.want {
			t.Errorf("containerdMajor(%q, %q) = %d, want %d", tc.version, tc.kubelet, got, tc.want)
		}
	}
}

// containerdOf is node w0's containerd as cluster c expands it.
func containerdOf(t *testing.T, c *resources.Cluster) resources.Desired {
	t.Helper()
	services, err := componentServices(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range services {
		if d.Addr == resources.ServiceAddr(resources.CompContainerd, "w0") {
			return d
		}
	}
	t.Fatal("no containerd on w0")
	return resources.Desired{}
}

// TestContainerdMajorUpgradeDrainsTheNode: a Node whose containerd moves
// from 1 to 2 is drained first, as the plan says — also when its record
// predates eggo keeping releases (its kubelet's minor tells); a new patch
// of the same major restarts containerd without a drain.
func TestContainerdMajorUpgradeDrainsTheNode(t *testing.T) {
	bundle := func(content, source string) string { return bundleWith(t, containerdProgram, content, source) }
	old := containerdOf(t, upgradeCluster("1.34.2", bundle("containerd 1.6", "debian:containerd 1.6.20~ds1-1+deb12u3")))
	next := containerdOf(t, upgradeCluster("1.35.4", bundle("containerd 2.3", "github.com/containerd/containerd/v2@v2.3.7")))
	patch := containerdOf(t, upgradeCluster("1.35.4", bundle("containerd 2.3.8", "github.com/containerd/containerd/v2@v2.3.8")))

	kubelet := resources.Object{Addr: resources.ServiceAddr(resources.CompKubelet, "w0"), Kind: "service", Node: "w0",
		Attrs: resources.Attrs{svcComponent: resources.CompKubelet, svcVersion: "1.34.2"}}
	rc := resources.NewRunContext(nil, nil)
	defer rc.Close()
	rc.RecordedAt = func(addr string) (resources.Object, bool) { return kubelet, addr == kubelet.Addr }
	plan := func(prior *resources.Object, d resources.Desired) resources.Change {
		ch, err := Service{}.Plan(context.Background(), rc, prior, d)
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	const drains = "drains node w0 first, and uncordons it after: containerd 1 → 2"
	if ch := plan(recorded(old, nil), next); ch.Action != resources.Update || !strings.Contains(reasonText(ch), drains) ||
		!strings.Contains(reasonText(ch), "containerd 1.6.20 sha256:") || !strings.Contains(reasonText(ch), "containerd 2.3.7 sha256:") {
		t.Errorf("containerd 1.6.20 → 2.3.7: %s (%s), want an update that says %q", ch.Action, reasonText(ch), drains)
	}
	legacy := recorded(old, nil)
	legacy.Attrs[svcVersion] = "containerd " + programDigest(resources.AttrString(old.Attrs[svcVersion]))
	if ch := plan(legacy, next); !strings.Contains(reasonText(ch), drains) {
		t.Errorf("from a record without its release, on a 1.34 kubelet: %s (%s), want %q", ch.Action, reasonText(ch), drains)
	}
	if ch := plan(recorded(next, nil), patch); ch.Action != resources.Update || strings.Contains(reasonText(ch), "drains") {
		t.Errorf("containerd 2.3.7 → 2.3.8: %s (%s), want a restart without a drain", ch.Action, reasonText(ch))
	}
	if got := drainScript("kubectl --kubeconfig /a", "w 0"); got != "set -e\nkubectl --kubeconfig /a cordon 'w 0' >/dev/null\nkubectl --kubeconfig /a drain 'w 0' --ignore-daemonsets --delete-emptydir-data --force --timeout=180s >/dev/null\n" {
		t.Errorf("drainScript = %q", got)
	}
}
