package kube

import (
	"fmt"
	"strconv"
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
		r, ok := parseRelease(v)
		if !ok {
			continue
		}
		if old, _ := parseRelease(span.Oldest); span.Oldest == "" || r.less(old) {
			span.Oldest = v
		}
		if newest, _ := parseRelease(span.Newest); span.Newest == "" || newest.less(r) {
			span.Newest = v
		}
	}
}

// checkVersionSkew refuses a kubernetes_version the running cluster cannot
// move to in one plan.
func checkVersionSkew(c *resources.Cluster) error {
	span := c.RecordedKubernetes
	want, ok := parseRelease(c.KubernetesVersion)
	oldest, okOld := parseRelease(span.Oldest)
	newest, okNew := parseRelease(span.Newest)
	if !ok || !okOld || !okNew {
		return nil
	}
	runs := "the cluster runs " + span.Oldest
	if span.Oldest != span.Newest {
		runs = fmt.Sprintf("the cluster runs %s and %s (an upgrade stopped midway)", span.Oldest, span.Newest)
	}
	switch {
	case want.major != oldest.major || want.major != newest.major:
		return resources.Blame(c.At("kubernetes_version"), "Not a Kubernetes upgrade eggo can plan",
			"%s and kubernetes_version asks for %s, another major version.", runs, c.KubernetesVersion)
	case want.minor > oldest.minor+1:
		var minors []string
		for m := oldest.minor + 1; m < want.minor; m++ {
			minors = append(minors, fmt.Sprintf("%d.%d", want.major, m))
		}
		first := "the newest " + minors[0] + " release first"
		if n := len(minors); n > 1 {
			first = "the newest release of " + strings.Join(minors[:n-1], ", ") + " and " + minors[n-1] + " in turn"
		}
		return resources.Blame(c.At("kubernetes_version"), "Kubernetes upgrades one minor version at a time",
			"%s and kubernetes_version asks for %s: Kubernetes supports an upgrade of one minor version at a time "+
				"(its version skew policy), and each minor's control plane must run before the next one's. "+
				"Apply %s, then %s.", runs, c.KubernetesVersion, first, c.KubernetesVersion)
	case want.minor < newest.minor:
		return resources.Blame(c.At("kubernetes_version"), "Kubernetes cannot go back a minor version",
			"%s and kubernetes_version asks for %s: Kubernetes cannot go back a minor version (the newer API servers "+
				"may have stored objects in etcd that the older ones cannot read). Keep a %d.%d release, or restore "+
				"an etcd snapshot taken before the upgrade.", runs, c.KubernetesVersion, newest.major, newest.minor)
	}
	return nil
}

// release is a Kubernetes release version's numbers.
type release struct{ major, minor, patch int }

// parseRelease reads "1.31.4" (a pre-release suffix, "-rc.1", is ignored).
func parseRelease(v string) (release, bool) {
	v, _, _ = strings.Cut(strings.TrimPrefix(v, "v"), "-")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return release{}, false
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 {
			return release{}, false
		}
		n[i] = x
	}
	return release{n[0], n[1], n[2]}, true
}

func (r release) less(o release) bool {
	if r.major != o.major {
		return r.major < o.major
	}
	if r.minor != o.minor {
		return r.minor < o.minor
	}
	return r.patch < o.patch
}
