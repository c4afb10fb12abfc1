package kube

import (
	"context"
	"fmt"
	"strings"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// EtcdSnapshotDir is where a member keeps the snapshots it took before a
// new etcd program started on it: a directory of eggo's own right under
// /var/lib (a host has /var/lib, so removing this directory leaves the host
// as it was; /var/lib/eggo is the host kind's, and an etcd-only host has
// none), removed with the member (a code path, not a recorded cleanup, so
// clusters made before it plan nothing new).
const EtcdSnapshotDir = "/var/lib/eggo-etcd-snapshots"

// etcdSnapshotsKept is how many of a member's snapshots stay: the newest.
const etcdSnapshotsKept = 3

// snapshotBeforeUpgrade saves the member's keyspace with `etcdctl snapshot
// save` before a new etcd program replaces the running one, as kubeadm
// backs etcd's data up before an upgrade: an etcd minor upgrade cannot be
// undone by starting the old program again (its data moved on), and the
// snapshot is what a restore starts from. Only when the program changes:
// a restart for a new flag or certificate keeps the data's format.
func snapshotBeforeUpgrade(ctx context.Context, in *serviceInstall) error {
	from := resources.AttrString(in.prior[svcVersion])
	if from == "" || sameProgram(from, in.svc.Version) {
		return nil
	}
	ctl := etcdctl(memberDir(in.prior), "https://127.0.0.1:2379")
	// The name says when and from which program ("etcd sha256:…", or the
	// Kubernetes release without a bundle): the newest sort last.
	name := strings.NewReplacer(" ", "-", ":", "-").Replace(from)
	script := fmt.Sprintf(`set -e
d=%[1]s
mkdir -p "$d"
chmod 0700 "$d"
f="$d/$(date -u +%%Y%%m%%dT%%H%%M%%SZ)-"%[2]s.db
%[3]s snapshot save "$f.part" >/dev/null
mv "$f.part" "$f"
ls -1 "$d"/*.db | sort -r | tail -n +%[4]d | xargs -r rm -f
echo "$f"
`, shell.Quote(EtcdSnapshotDir), shell.Quote(name), ctl, etcdSnapshotsKept+1)
	out, err := resources.RunScript(ctx, in.conn, script, true)
	if err != nil {
		return fmt.Errorf("%s: snapshot before the new etcd program: %w", in.addr, err)
	}
	in.rc.Progress(in.addr, "saved etcd's keyspace to "+strings.TrimSpace(out)+" before the new program")
	return nil
}

// removeSnapshots deletes the member's snapshots as the member goes.
func removeSnapshots(ctx context.Context, rc *resources.RunContext, prior resources.Object) error {
	conn, err := serviceConn(ctx, rc, prior.Node, prior.Addr, prior.Attrs)
	if err != nil {
		return err
	}
	if _, err := resources.RunScript(ctx, conn, "rm -rf "+shell.Quote(EtcdSnapshotDir), true); err != nil {
		return fmt.Errorf("%s: removing its snapshots: %w", prior.Addr, err)
	}
	return nil
}
