package kube

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// runPod (re)starts a static pod once its files are written: the image
// imported from the bundle if containerd lacks it, the manifest written as a
// dot-file (the kubelet ignores those) and renamed over the old one — the
// kubelet never reads half a manifest — the old one kept outside the
// manifests directory. Then it waits for the component's health and for
// containerd to run the pod of this manifest; when either fails, the old
// manifest goes back (no old one: the new one goes), and the error says so:
// the roll stops with the cluster serving.
func (in *serviceInstall) runPod(ctx context.Context) error {
	s := in.svc
	p := s.Pod
	digests, ok := s.digests()
	if !ok {
		return fmt.Errorf("%s: a file is not known yet (an input was not applied)", in.addr)
	}
	digest := configDigest(s.Unit, digests)
	manifest := s.unitText(digests)
	target, staged, backup := s.unitPath(), path.Join(p.ManifestDir, "."+s.UnitName), path.Join(manifestBackupDir, s.UnitName)
	in.rc.Progress(in.addr, "writing the static pod "+target)
	prepare := fmt.Sprintf("set -e\nmkdir -p %[1]s %[2]s\n%[3]sif [ -f %[4]s ]; then cp -p %[4]s %[5]s; else rm -f %[5]s; fi\n",
		shell.Quote(p.ManifestDir), shell.Quote(manifestBackupDir), importImage(p.Image, p.Archive), shell.Quote(target), shell.Quote(backup))
	if _, err := resources.RunScript(ctx, in.conn, prepare, true); err != nil {
		return fmt.Errorf("%s: preparing the static pod: %w", in.addr, err)
	}
	if err := in.conn.Upload(ctx, strings.NewReader(manifest), int64(len(manifest)), staged, 0o600, resources.SHA256Hex(manifest)); err != nil {
		return fmt.Errorf("%s: writing %s: %w", in.addr, staged, err)
	}
	if _, err := resources.RunScript(ctx, in.conn, "mv -f "+shell.QuoteAll([]string{staged, target})+"\n", true); err != nil {
		return fmt.Errorf("%s: replacing %s: %w", in.addr, target, err)
	}
	// The pod first: its check is the one that sees a crash loop.
	health := podRunning(p.PodName, digest, target)
	if s.Health != "" {
		health += " && " + s.Health
	}
	in.giveUp = []string{crashLoopText, sandboxFailText}
	err := in.healthyWith(ctx, health)
	if err == nil {
		return nil
	}
	// Put the old manifest back the way the new one came: staged, renamed.
	restore := fmt.Sprintf("if [ -f %[1]s ]; then cp -p %[1]s %[2]s && mv -f %[2]s %[3]s && echo restored; else rm -f %[3]s && echo removed; fi\n",
		shell.Quote(backup), shell.Quote(staged), shell.Quote(target))
	out, rerr := resources.RunScript(context.WithoutCancel(ctx), in.conn, restore, true)
	switch {
	case rerr != nil:
		return fmt.Errorf("%w\n    putting the previous manifest back failed too: %v", err, rerr)
	case strings.TrimSpace(out) == "removed":
		return fmt.Errorf("%w\n    %s had no previous manifest: the new one was removed", err, s.Component)
	}
	return fmt.Errorf("%w\n    the previous manifest of %s is back in %s", err, s.Component, target)
}

// removeStaticPod is the shell that takes a static pod away: its manifest
// (the kubelet stops the pod), then a wait of up to a minute for its
// containers to go.
func removeStaticPod(s service) string {
	p := s.Pod
	return fmt.Sprintf("rm -f %s %s %s %s\n", shell.Quote(s.unitPath()), shell.Quote(path.Join(p.ManifestDir, "."+s.UnitName)),
		shell.Quote(path.Join(p.ManifestDir, "."+s.UnitName+".eggo-tmp")), shell.Quote(path.Join(manifestBackupDir, s.UnitName))) +
		waitPodGone(p.PodName)
}

// waitPodGone is the shell that waits up to a minute and a half for the
// sandboxes of the static pod podName to stop (its manifest gone).
func waitPodGone(podName string) string {
	return fmt.Sprintf(`for i in $(seq 90); do
  running=
  for sb in $(ctr -n k8s.io containers ls -q %s 2>/dev/null); do
    ctr -n k8s.io tasks ls 2>/dev/null | awk -v id="$sb" '$1 == id && $3 == "RUNNING" {f = 1} END {exit !f}' && running=1
  done
  [ -z "$running" ] && break
  sleep 1
done
`, sandboxFilter(podName, ""))
}

// podLogs prints the last lines of a static pod's newest container log.
func podLogs(podName string) string {
	return fmt.Sprintf("f=$(ls -t /var/log/pods/kube-system_%s_*/*/*.log 2>/dev/null | head -n1)\n[ -n \"$f\" ] && tail -n 15 \"$f\" | cut -d' ' -f4- | cut -c1-300\n", shell.Quote(podName))
}

// switchesRunner says whether a service moves between a systemd unit and a
// static pod (the cluster's implementation changed): an update that stops
// the one and starts the other, rolled like any restart of the control
// plane, one master at a time.
func switchesRunner(have, want service) bool {
	return have.Component == want.Component && have.UnitName != "" && (have.Pod == nil) != (want.Pod == nil)
}

// stopRunner stops a service's unit, or takes its static pod away, for a
// switch to the other runner: what it did can be undone (runnerSwitch.end)
// until the other one is healthy. A unit's file moves to unitBackupDir and
// the unit stops, its process waited for (the pod that follows binds the
// same ports); a pod's manifest moves to the backup directory and its
// containers are waited for.
func stopRunner(ctx context.Context, rc *resources.RunContext, conn providers.Conn, addr string, have, want service) (*runnerSwitch, error) {
	sw := &runnerSwitch{rc: rc, conn: conn, addr: addr, have: have, want: want}
	var script string
	if have.Pod != nil {
		script = fmt.Sprintf("mkdir -p %[1]s\nif [ -f %[2]s ]; then mv -f %[2]s %[3]s; fi\n", shell.Quote(manifestBackupDir), shell.Quote(have.unitPath()), shell.Quote(sw.backup())) +
			waitPodGone(have.Pod.PodName)
	} else {
		// Its file moves aside (until the switch ends) before it stops:
		// the units still running beside it want it
		// (Wants=kube-apiserver.service), and systemd would start it again
		// the next time one of them restarts. (A runtime mask does not
		// hide a unit file in /etc.)
		script = fmt.Sprintf(`pid=$(systemctl show -p MainPID --value %[1]s 2>/dev/null)
systemctl disable -q %[1]s 2>/dev/null || true
mkdir -p %[2]s
if [ -f %[3]s ]; then mv -f %[3]s %[4]s; fi
systemctl daemon-reload
systemctl stop %[1]s
for i in $(seq 90); do [ "${pid:-0}" -gt 0 ] && kill -0 "$pid" 2>/dev/null || break; sleep 1; done
if [ "${pid:-0}" -gt 0 ] && kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; sleep 1; fi
systemctl reset-failed %[1]s 2>/dev/null || true
`, shell.Quote(have.UnitName), shell.Quote(unitBackupDir), shell.Quote(have.unitPath()), shell.Quote(sw.unitBackup()))
	}
	rc.Progress(addr, "stopping "+have.runnerText())
	if _, err := resources.RunScript(ctx, conn, script, true); err != nil {
		return nil, fmt.Errorf("%s: stopping %s: %w", addr, have.runnerText(), err)
	}
	return sw, nil
}

// runnerSwitch is a switch of a service between its unit and a static
// pod, under way: the old runner stopped, kept until the new one runs.
type runnerSwitch struct {
	rc         *resources.RunContext
	conn       providers.Conn
	addr       string
	have, want service
}

// backup is where the old manifest waits (a pod → unit switch).
func (sw *runnerSwitch) backup() string { return path.Join(manifestBackupDir, sw.have.UnitName) }

// unitBackupDir keeps a unit's file while a switch to its static pod is
// under way: outside systemd's search path.
const unitBackupDir = "/var/lib/eggo/units-backup"

// unitBackup is where the old unit's file waits (a unit → pod switch).
func (sw *runnerSwitch) unitBackup() string { return path.Join(unitBackupDir, sw.have.UnitName) }

// end finishes the switch after the new runner's start (err, nil when it
// is healthy): the old runner's leftovers go; or, on failure, the new
// runner stops and the old one starts again, and the error says so.
func (sw *runnerSwitch) end(ctx context.Context, err error) error {
	var script string
	switch {
	case err == nil && sw.have.Pod != nil:
		script = "rm -f " + shell.Quote(sw.backup()) + "\n"
	case err == nil:
		script = fmt.Sprintf("rm -f %s\nrmdir %s 2>/dev/null || true\n", shell.Quote(sw.unitBackup()), shell.Quote(unitBackupDir))
	case sw.have.Pod != nil: // the unit did not start: the pod again
		script = fmt.Sprintf("systemctl disable -q --now %[1]s 2>/dev/null; rm -f %[2]s; systemctl daemon-reload; systemctl reset-failed %[1]s 2>/dev/null\n"+
			"cp -p %[3]s %[4]s && mv -f %[4]s %[5]s\n",
			shell.Quote(sw.want.UnitName), shell.Quote(sw.want.unitPath()), shell.Quote(sw.backup()),
			shell.Quote(path.Join(sw.have.Pod.ManifestDir, "."+sw.have.UnitName)), shell.Quote(sw.have.unitPath()))
	default: // the pod did not start (runPod took its manifest away): the unit again
		script = waitPodGone(sw.want.Pod.PodName) + fmt.Sprintf("mv -f %[2]s %[3]s\nrmdir %[4]s 2>/dev/null || true\nsystemctl daemon-reload\nsystemctl enable -q --now %[1]s\n",
			shell.Quote(sw.have.UnitName), shell.Quote(sw.unitBackup()), shell.Quote(sw.have.unitPath()), shell.Quote(unitBackupDir))
	}
	if _, rerr := resources.RunScript(context.WithoutCancel(ctx), sw.conn, script, true); rerr != nil {
		if err != nil {
			return fmt.Errorf("%w\n    starting the %s again failed too: %v", err, sw.have.runnerText(), rerr)
		}
		return fmt.Errorf("%s: removing the %s after the switch: %w", sw.addr, sw.have.runnerText(), rerr)
	}
	if err != nil {
		return fmt.Errorf("%w\n    the switch is undone: the %s runs again", err, sw.have.runnerText())
	}
	return nil
}
