package kube

import (
	"fmt"
	"strings"

	"github.com/eggo-project/eggo/resources"
)

// Kubernetes' version skew policy, as a plan keeps it: a cluster moves one
// minor version at a time, and only up (kubeadm's upgrade refuses the
// same). The versions its components run are read from the state before
// anything expands (RecallKubernetesVersions); checkVersionSkew refuses a
// kubernetes_version more than one minor above the oldest of them, or a
// minor below the newest, at its line, saying which way to go. A patch
// release may change either way.

// RecallKubernetesVersions fills c.RecordedKubernetes from the versions the
// cluster's services recorded: a Kubernetes component records the release
// its binaries come from; etcd's and containerd's records, which name their
// own programs, are not releases and are passed over.
func RecallKubernetesVersions(c *resources.Cluster, recorded func(kind string) []resources.Object) {
	span := &c.RecordedKubernetes
	for _, o := range recorded("service") {
		v := resources.AttrString(o.Attrs[svcVersion])
		r, ok := resources.ParseKubernetesVersion(v)
		if !ok {
			continue
		}
		if old, _ := resources.ParseKubernetesVersion(span.Oldest); span.Oldest == "" || r.Less(old) {
			span.Oldest = v
		}
		if newest, _ := resources.ParseKubernetesVersion(span.Newest); span.Newest == "" || newest.Less(r) {
			span.Newest = v
		}
	}
}

// checkVersionSkew refuses a kubernetes_version the running cluster cannot
// move to in one plan.
func checkVersionSkew(c *resources.Cluster) error {
	span := c.RecordedKubernetes
	want, ok := resources.ParseKubernetesVersion(c.KubernetesVersion)
	oldest, okOld := resources.ParseKubernetesVersion(span.Oldest)
	newest, okNew := resources.ParseKubernetesVersion(span.Newest)
	if !ok || !okOld || !okNew {
		return nil
	}
	runs := "the cluster runs " + span.Oldest
	if span.Oldest != span.Newest {
		runs = fmt.Sprintf("the cluster runs %s and %s (an upgrade stopped midway)", span.Oldest, span.Newest)
	}
	switch {
	case want.Major != oldest.Major || want.Major != newest.Major:
		return resources.Blame(c.At("kubernetes_version"), "Not a Kubernetes upgrade eggo can plan",
			"%s and kubernetes_version asks for %s, another major version.", runs, c.KubernetesVersion)
	case want.Minor > oldest.Minor+1:
		var minors []string
		for m := oldest.Minor + 1; m < want.Minor; m++ {
			minors = append(minors, fmt.Sprintf("%d.%d", want.Major, m))
		}
		first := "the newest " + minors[0] + " release first"
		if n := len(minors); n > 1 {
			first = "the newest release of " + strings.Join(minors[:n-1], ", ") + " and " + minors[n-1] + " in turn"
		}
		return resources.Blame(c.At("kubernetes_version"), "Kubernetes upgrades one minor version at a time",
			"%s and kubernetes_version asks for %s: Kubernetes supports an upgrade of one minor version at a time "+
				"(its version skew policy), and each minor's control plane must run before the next one's. "+
				"Apply %s, then %s.", runs, c.KubernetesVersion, first, c.KubernetesVersion)
	case want.Minor < newest.Minor:
		return resources.Blame(c.At("kubernetes_version"), "Kubernetes cannot go back a minor version",
			"%s and kubernetes_version asks for %s: Kubernetes cannot go back a minor version (the newer API servers "+
				"may have stored objects in etcd that the older ones cannot read). Keep a %d.%d release, or restore "+
				"an etcd snapshot taken before the upgrade.", runs, c.KubernetesVersion, newest.Major, newest.Minor)
	}
	return nil
}
