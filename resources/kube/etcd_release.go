package kube

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/eggo-project/eggo/internal/text"
	"github.com/eggo-project/eggo/resources"
)

// etcd moves one minor release at a time (3.4 → 3.5 → 3.6 → 3.7), as its
// upgrade guides require: a member of a new minor joins a cluster whose
// version is the minor before it, and the cluster's version moves up once
// every member runs the new one; data a newer minor wrote cannot go back.
// A plan that asks a member for an etcd more than one minor above the
// oldest recorded member's, or for a minor below the newest one's, is
// refused, naming the members and the release to go through. The releases
// come from the programs' versions (programVersion: "etcd 3.6.8 sha256:…");
// a member recorded before eggo kept its release is named in a warning.

// etcdMinor is an etcd 3 release's minor number (6 of "3.6.8"), or ok false.
func etcdMinor(release string) (minor int, ok bool) {
	parts := strings.Split(release, ".")
	if len(parts) != 3 || parts[0] != "3" {
		return 0, false
	}
	m, err := strconv.Atoi(parts[1])
	return m, err == nil
}

// checkEtcdReleases is EtcdMember.CheckPlan's release check.
func checkEtcdReleases(r resources.PlanReview) ([]string, error) {
	var moving []etcdRelease // members whose program changes, and to which release
	for _, ch := range r.Changes {
		switch ch.Action {
		case resources.Create, resources.Update, resources.Replace:
		default:
			continue
		}
		after := resources.AttrString(ch.After[svcVersion])
		if ch.Before != nil && sameProgram(resources.AttrString(ch.Before[svcVersion]), after) {
			continue
		}
		rel := programRelease(after)
		if m, ok := etcdMinor(rel); ok {
			moving = append(moving, etcdRelease{ch.Addr, rel, m})
		}
	}
	if len(moving) == 0 {
		return nil, nil
	}
	var oldest, newest *etcdRelease
	var unknown []string
	for _, o := range r.Recorded {
		v := resources.AttrString(o.Attrs[svcVersion])
		if programDigest(v) == "" {
			continue // the operator's own etcd, versioned by Kubernetes' release
		}
		rel := programRelease(v)
		m, ok := etcdMinor(rel)
		if !ok {
			unknown = append(unknown, o.Addr)
			continue
		}
		if oldest == nil || m < oldest.minor {
			oldest = &etcdRelease{o.Addr, rel, m}
		}
		if newest == nil || m > newest.minor {
			newest = &etcdRelease{o.Addr, rel, m}
		}
	}
	var warnings []string
	if len(unknown) > 0 {
		slices.Sort(unknown)
		warnings = append(warnings, fmt.Sprintf("eggo cannot tell which etcd release %s run (recorded before eggo kept it): "+
			"this plan moves them to etcd %s; etcd upgrades one minor at a time, so make sure they run the minor before it",
			text.Some(unknown, 5), moving[0].release))
	}
	if oldest == nil {
		return warnings, nil
	}
	om, nm := oldest.minor, newest.minor
	for _, mv := range moving {
		switch m := mv.minor; {
		case m > om+1:
			return nil, fmt.Errorf("%s: etcd upgrades one minor release at a time, and this plan moves it to etcd %s while %s runs etcd %s: "+
				"apply a bundle whose etcd is %s first (which etcd each Kubernetes minor's bundle carries: website/kubernetes.md), then this one",
				mv.addr, mv.release, oldest.addr, oldest.release, between(om, m))
		case m < nm:
			return nil, fmt.Errorf("%s: etcd cannot go back a minor release, and this plan moves it to etcd %s while %s runs etcd %s "+
				"(data a newer etcd wrote is not for an older one): keep a bundle with etcd 3.%d, or restore a snapshot taken before the upgrade "+
				"(each member keeps its last ones in %s)", mv.addr, mv.release, newest.addr, newest.release, nm, EtcdSnapshotDir)
		}
	}
	return warnings, nil
}

// etcdRelease is a member, the etcd release it runs or is to run, and
// that release's minor.
type etcdRelease struct {
	addr, release string
	minor         int
}

// between names the etcd minors from after from up to before to: "3.5",
// "3.5 and then 3.6".
func between(from, to int) string {
	var out []string
	for m := from + 1; m < to; m++ {
		out = append(out, fmt.Sprintf("3.%d", m))
	}
	return strings.Join(out, " and then ")
}
