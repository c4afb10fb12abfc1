package kube

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// An etcd member's place in its cluster: joining it, leaving it, handing
// over the leadership before a restart, and the quorum a plan must keep.

// join adds this member to the running cluster (unless an interrupted run
// already did) and returns the initial cluster it must start with.
func (EtcdMember) join(ctx context.Context, rc *resources.RunContext, in *serviceInstall, desired resources.Desired) (string, error) {
	var endpoints []string
	for _, m := range runningMembers(rc, desired.Addr) {
		endpoints = append(endpoints, resources.AttrString(m.Attrs[etcdClientURL]))
	}
	if len(endpoints) == 0 {
		return "", fmt.Errorf("%s: no running etcd member recorded to join through", desired.Addr)
	}
	name, peer := resources.AttrString(desired.Attrs[etcdName]), resources.AttrString(desired.Attrs[etcdPeerURL])
	ctl := etcdctl(memberDir(desired.Attrs), strings.Join(endpoints, ","))
	rc.Progress(desired.Addr, "adding member "+name+" to the running etcd cluster")
	// member list -w simple: ID, status, name, peer URLs, client URLs.
	// etcd refuses an add as "unhealthy cluster" until its leader has
	// been connected to a quorum for 5 s: right after a member restarted
	// (one the plan repaired before this join), so that answer is retried.
	script := fmt.Sprintf(`set -e
list=$(%[1]s member list)
if ! printf '%%s\n' "$list" | grep -qF ', %[3]s,'; then
  tries=0
  until out=$(%[1]s member add %[2]s --peer-urls=%[3]s 2>&1); do
    tries=$((tries + 1))
    case "$out" in
    *"unhealthy cluster"*) [ "$tries" -lt 30 ] || { printf '%%s\n' "$out" >&2; exit 1; }; sleep 2 ;;
    *) printf '%%s\n' "$out" >&2; exit 1 ;;
    esac
  done
  list=$(%[1]s member list)
fi
printf '%%s\n' "$list"
`, ctl, shell.Quote(name), shell.Quote(peer))
	out, err := resources.RunScript(ctx, in.conn, script, true)
	if err != nil {
		return "", fmt.Errorf("%s: adding the member through %s: %w", desired.Addr, strings.Join(endpoints, ","), err)
	}
	var cluster []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, ", ")
		if len(f) < 4 {
			continue
		}
		memberName, peers := f[2], f[3]
		if memberName == "" && peers == peer { // added, not started yet: us
			memberName = name
		}
		for _, p := range strings.Split(peers, ",") {
			cluster = append(cluster, memberName+"="+p)
		}
	}
	sort.Strings(cluster)
	if len(cluster) == 0 {
		return "", fmt.Errorf("%s: etcd listed no members: %q", desired.Addr, out)
	}
	return strings.Join(cluster, ","), nil
}

// handOverLeadership moves etcd's leadership away from a member about to
// restart, to another started member: the requests the apiservers have in
// flight then see no election ("etcdserver: leader changed") when it
// stops. Best effort — a restart of a member that kept the leadership is
// still safe, only less smooth — so a failure is reported, not returned.
func handOverLeadership(ctx context.Context, in *serviceInstall) error {
	ctl := etcdctl(memberDir(in.prior), "https://127.0.0.1:2379")
	// endpoint status: endpoint, ID, version, db size, is leader, …;
	// member list: ID, status, name, peer URLs, client URLs, is learner.
	script := fmt.Sprintf(`set -e
st=$(%[1]s endpoint status 2>/dev/null) || exit 0
self=$(printf '%%s
' "$st" | awk -F', ' '{print $2}')
[ "$(printf '%%s
' "$st" | awk -F', ' '{print $5}')" = true ] || exit 0
to=$(%[1]s member list | awk -F', ' -v self="$self" '$1 != self && $2 == "started" && $6 != "true" {print $1; exit}')
[ -n "$to" ] || exit 0
%[1]s move-leader "$to" >/dev/null
echo "$to"
`, ctl)
	out, err := resources.RunScript(ctx, in.conn, script, true)
	switch {
	case err != nil:
		in.rc.Progress(in.addr, "could not hand etcd's leadership over before the restart: "+err.Error())
	case strings.TrimSpace(out) != "":
		in.rc.Progress(in.addr, "handed etcd's leadership to member "+strings.TrimSpace(out))
	}
	return nil
}

// removeMember runs `member remove` on another member's host, so it works
// when this member's host is dead.
func removeMember(ctx context.Context, rc *resources.RunContext, prior resources.Object) error {
	others := runningMembers(rc, prior.Addr)
	if len(others) == 0 {
		return nil // the last member: nothing to remove it from
	}
	peer := resources.AttrString(prior.Attrs[etcdPeerURL])
	var lastErr error
	for _, o := range others {
		conn, err := serviceConn(ctx, rc, o.Node, o.Addr, o.Attrs)
		if err != nil {
			lastErr = err
			continue
		}
		dir := memberDir(o.Attrs)
		ctl := etcdctl(dir, "https://127.0.0.1:2379")
		rc.Progress(prior.Addr, "removing member "+resources.AttrString(prior.Attrs[etcdName])+" through "+o.Node)
		script := fmt.Sprintf(`set -e
id=$(%[1]s member list | awk -F', ' -v p=%[2]s '{ n = split($4, u, ","); for (i = 1; i <= n; i++) if (u[i] == p) print $1 }')
if [ -n "$id" ]; then %[1]s member remove "$id" >/dev/null; fi
`, ctl, shell.Quote(peer))
		if _, err := resources.RunScript(ctx, conn, script, true); err != nil {
			lastErr = fmt.Errorf("through %s: %w", o.Node, err)
			continue
		}
		return nil
	}
	return fmt.Errorf("%s: removing the etcd member: %w", prior.Addr, lastErr)
}

// CheckPlan refuses to remove so many members at once that the rest lose
// quorum, or to move etcd more than one minor release (etcd_release.go).
func (EtcdMember) CheckPlan(r resources.PlanReview) ([]string, error) {
	if r.Destroy {
		return nil, nil
	}
	warnings, err := checkEtcdReleases(r)
	if err != nil {
		return nil, err
	}
	running := 0
	for _, o := range r.Recorded {
		if !o.Pending {
			running++
		}
	}
	removed := 0
	var names []string
	for _, ch := range r.Changes {
		if ch.Action == resources.Delete || ch.Action == resources.Replace {
			removed++
			names = append(names, ch.Addr)
		}
	}
	if removed == 0 || running == 0 {
		return warnings, nil
	}
	quorum := running/2 + 1
	// One member at a time can always go (each removal is agreed by the
	// quorum of the moment); more at once must leave a quorum standing.
	if running-removed < quorum && (removed > 1 || running == removed) {
		if running == removed {
			return nil, fmt.Errorf("this plan removes every etcd member (%s): the masters would lose their data; use `eggo destroy` to tear the cluster down", strings.Join(names, ", "))
		}
		return nil, fmt.Errorf("this plan removes %d of %d etcd members at once (%s): the %d left are short of the quorum of %d, and etcd would stop serving. Remove at most %d member(s) per apply",
			removed, running, strings.Join(names, ", "), running-removed, quorum, running-quorum)
	}
	return warnings, nil
}
