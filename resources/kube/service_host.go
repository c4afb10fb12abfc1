package kube

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// unitHeader marks a unit file as eggo's: eggo never overwrites a unit of
// the same name that someone else wrote.
const unitHeader = "# Managed by eggo: edits are undone by the next apply.\n"

// serviceConn is the run's connection to the node a service lives on.
func serviceConn(ctx context.Context, rc *resources.RunContext, node, addr string, a resources.Attrs) (providers.Conn, error) {
	conn, err := rc.Connect(ctx, node, a)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", addr, err)
	}
	return conn, nil
}

// serviceInstall is one (re)installation of a service on its host.
type serviceInstall struct {
	rc     *resources.RunContext
	conn   providers.Conn
	addr   string
	node   string
	svc    service
	prior  resources.Attrs // recorded attributes, nil on create
	upload map[string]bool // paths to (re)write; nil: all
	unit   bool            // (re)write the unit file
	// beforeStart runs once files and unit are written, before the start
	// (an etcd member is added to the running cluster there).
	beforeStart func(ctx context.Context, rec resources.Attrs) error
	// noBlock starts the unit without waiting for it (etcd members of a new
	// cluster become ready only together); health does the waiting.
	noBlock bool
	// giveUp: when the health check prints one of them, the wait ends at
	// once: the component will not become healthy (a static pod
	// crash-looping, or with no sandbox).
	giveUp []string
}

// run converges the host: directories, files, unit, restart, post-start,
// health. It returns the attributes to record; on error, those of what was
// done so far, so a Delete can still remove it.
func (in *serviceInstall) run(ctx context.Context, desired resources.Attrs) (resources.Attrs, error) {
	s := in.svc
	if err := s.checkPaths(); err != nil {
		return in.prior, fmt.Errorf("%s: %w", in.addr, err)
	}
	rec := recordedService(desired, in.prior)
	if err := in.claim(ctx, rec); err != nil {
		return in.prior, err
	}
	// Write-ahead: what we are about to create is recorded before we do.
	if err := in.rc.Checkpoint(in.addr, rec); err != nil {
		return in.prior, fmt.Errorf("%s: recording before changing the host: %w", in.addr, err)
	}
	if dirs := s.dirs(); len(dirs) > 0 {
		if _, err := resources.RunScript(ctx, in.conn, "mkdir -p "+shell.QuoteAll(dirs)+"\n", true); err != nil {
			return rec, fmt.Errorf("%s: creating directories: %w", in.addr, err)
		}
	}
	for _, f := range s.Files {
		if in.upload != nil && !in.upload[f.Path] {
			continue
		}
		content, ok := f.render()
		if !ok {
			return rec, fmt.Errorf("%s: %s is not known yet (an input was not applied)", in.addr, f.Path)
		}
		mode, err := strconv.ParseUint(f.Mode, 8, 32)
		if err != nil {
			return rec, fmt.Errorf("%s: %s: mode %q is not octal", in.addr, f.Path, f.Mode)
		}
		in.rc.Progress(in.addr, "writing "+f.Path)
		if err := in.conn.Upload(ctx, strings.NewReader(content), int64(len(content)), f.Path, fs.FileMode(mode), resources.SHA256Hex(content)); err != nil {
			return rec, fmt.Errorf("%s: writing %s: %w", in.addr, f.Path, err)
		}
	}
	if s.Pod != nil {
		if in.beforeStart != nil {
			if err := in.beforeStart(ctx, rec); err != nil {
				return rec, err
			}
		}
		return rec, in.runPod(ctx)
	}
	unit := unitHeader + s.Unit
	if in.unit {
		if err := in.conn.Upload(ctx, strings.NewReader(unit), int64(len(unit)), s.unitPath(), 0o644, resources.SHA256Hex(unit)); err != nil {
			return rec, fmt.Errorf("%s: writing %s: %w", in.addr, s.unitPath(), err)
		}
	}
	if in.beforeStart != nil {
		if err := in.beforeStart(ctx, rec); err != nil {
			return rec, err
		}
	}
	in.rc.Progress(in.addr, "restarting "+s.UnitName)
	block := ""
	if in.noBlock {
		block = "--no-block "
	}
	// A start that fails is tried once more, after a pause: systemd in a
	// container can fail to set up the cgroup of a unit restarted while its
	// old cgroup is still being torn down (seen: flanneld's ExecStartPre,
	// "status=219/CGROUP"). A unit that cannot start fails both times.
	restart := fmt.Sprintf("systemctl daemon-reload && systemctl enable -q %[1]s && { systemctl restart %[2]s%[1]s || { sleep 2; systemctl reset-failed %[1]s; systemctl start %[2]s%[1]s; }; }\n", shell.Quote(s.UnitName), block)
	if _, err := resources.RunScript(ctx, in.conn, restart, true); err != nil {
		return rec, fmt.Errorf("%s: starting %s: %w%s", in.addr, s.UnitName, err, in.journal(ctx))
	}
	if s.PostStart != "" {
		if err := in.retry(ctx, s.PostStart, true); err != nil {
			return rec, fmt.Errorf("%s: after starting %s: %w%s", in.addr, s.UnitName, err, in.journal(ctx))
		}
	}
	if err := in.healthy(ctx); err != nil {
		return rec, err
	}
	return rec, nil
}

// claim refuses to take over a unit eggo did not write, and works out
// which directories eggo creates and which data directories it owns.
func (in *serviceInstall) claim(ctx context.Context, rec resources.Attrs) error {
	s := in.svc
	var b strings.Builder
	fmt.Fprintf(&b, "if [ -e %[1]s ] && ! grep -qxF %[2]s %[1]s; then echo foreign; fi\n", shell.Quote(s.unitPath()), shell.Quote(strings.TrimSuffix(unitHeader, "\n")))
	for _, d := range s.dirs() {
		fmt.Fprintf(&b, "[ -e %[1]s ] || echo absent %[1]s\n", shell.Quote(d))
	}
	for _, d := range s.DataDirs {
		fmt.Fprintf(&b, "[ -d %[1]s ] && [ -z \"$(ls -A %[1]s)\" ] && echo empty %[1]s\n", shell.Quote(d))
	}
	b.WriteString("true\n")
	out, err := resources.RunScript(ctx, in.conn, b.String(), false)
	if err != nil {
		return fmt.Errorf("%s: probing the host: %w", in.addr, err)
	}
	var created, owned []string
	absent := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		word, p, _ := strings.Cut(line, " ")
		switch word {
		case "foreign":
			return fmt.Errorf("%s: %s already exists on %s and was not written by eggo; remove it or stop that service first", in.addr, s.unitPath(), in.node)
		case "absent":
			created = append(created, p)
			absent[p] = true
		case "empty":
			owned = append(owned, p)
		}
	}
	for _, d := range s.DataDirs {
		if absent[d] {
			owned = append(owned, d)
		}
	}
	// A directory the probe found that another component of the node
	// created is eggo's too: recorded here as well, so that whichever of
	// them goes last removes it (the first to go finds it still holding
	// the others' files). Read after the probe: a component records a
	// directory before it makes it (write-ahead), so one the probe found
	// was made after its record.
	siblings := in.createdBySiblings()
	for _, d := range s.dirs() {
		if !absent[d] && siblings[d] {
			created = append(created, d)
		}
	}
	// Union with what earlier runs recorded: an update may add directories.
	rec[svcCreatedDirs] = resources.Normalize(resources.SortedUnion(resources.StringList(rec[svcCreatedDirs]), created))
	rec[svcOwnedData] = resources.Normalize(resources.SortedUnion(resources.StringList(rec[svcOwnedData]), owned))
	return nil
}

// createdBySiblings is the set of directories the node's other services
// and its etcd member recorded as created by eggo, as the state holds them
// now: a lookup of each, never a walk of the cluster's services.
func (in *serviceInstall) createdBySiblings() map[string]bool {
	out := map[string]bool{}
	addrs := []string{EtcdMemberAddr(in.node)}
	for _, c := range resources.NodeComponents {
		addrs = append(addrs, resources.ServiceAddr(c, in.node))
	}
	for _, a := range addrs {
		o, ok := in.rc.RecordedAt(a)
		if !ok || a == in.addr {
			continue
		}
		for _, d := range resources.StringList(o.Attrs[svcCreatedDirs]) {
			out[d] = true
		}
	}
	return out
}

// healthy waits for the health command to pass.
func (in *serviceInstall) healthy(ctx context.Context) error {
	return in.healthyWith(ctx, in.svc.Health)
}

// healthyWith waits for health, a shell command, to pass.
func (in *serviceInstall) healthyWith(ctx context.Context, health string) error {
	s := in.svc
	if health == "" {
		return nil
	}
	in.rc.Progress(in.addr, "waiting for "+s.Component+" to be healthy")
	ctx, cancel := context.WithTimeout(ctx, s.HealthTimeout)
	defer cancel()
	if err := in.retry(ctx, health, false); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("not healthy after %s: %w", s.HealthTimeout, err)
		}
		return fmt.Errorf("%s: %s on %s: %w%s", in.addr, s.Component, in.node, err, in.journal(context.WithoutCancel(ctx)))
	}
	return nil
}

// retry runs a command every 2 s until it succeeds or ctx ends; the error
// is the last attempt's.
func (in *serviceInstall) retry(ctx context.Context, cmd string, mutates bool) error {
	var last error // the last attempt that ran to its end, with its output
	for {
		var out providers.TailBuffer
		out.Max = 2048
		err := in.conn.Run(ctx, providers.Command{Cmd: "sh -s", Stdin: strings.NewReader(cmd), Stdout: &out, Stderr: &out, Mutates: mutates})
		if err == nil {
			return nil
		}
		if ctx.Err() == nil {
			last = err
			if s := out.String(); s != "" {
				last = fmt.Errorf("%s", s)
			}
			for _, g := range in.giveUp {
				if strings.Contains(out.String(), g) {
					return last
				}
			}
		}
		select {
		case <-ctx.Done():
			if last == nil {
				last = err
			}
			return last
		case <-time.After(2 * time.Second):
		}
	}
}

// journal is the unit's last log lines, for an error message; a static
// pod's are its container's newest log's.
func (in *serviceInstall) journal(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	script := fmt.Sprintf("journalctl -u %s -n 15 --no-pager -o cat 2>&1 | tail -c 3000\n", shell.Quote(in.svc.UnitName))
	if p := in.svc.Pod; p != nil {
		script = podLogs(p.PodName)
	}
	out, err := resources.RunScript(ctx, in.conn, script, false)
	if err != nil || strings.TrimSpace(out) == "" {
		return ""
	}
	return "\n    last log lines of " + in.svc.UnitName + ":\n      " + strings.ReplaceAll(strings.TrimSpace(out), "\n", "\n      ")
}

// deleteService is the body of a service kind's Delete: on the service's
// node, stop it and remove everything it recorded. On failure the prior
// attributes stay, so a later run tries again.
func deleteService(ctx context.Context, rc *resources.RunContext, prior resources.Object) (resources.Attrs, error) {
	conn, err := serviceConn(ctx, rc, prior.Node, prior.Addr, prior.Attrs)
	if err != nil {
		return prior.Attrs, err
	}
	if err := removeService(ctx, rc, conn, prior.Addr, prior.Node, prior.Attrs); err != nil {
		return prior.Attrs, err
	}
	return nil, nil
}

// removeService stops and removes everything a service recorded, and runs
// eggo's cleanup for the component — today's, for the parameters of the
// one recorded (cleanupToRun): never the record's text.
func removeService(ctx context.Context, rc *resources.RunContext, conn providers.Conn, addr, node string, a resources.Attrs) error {
	s := parseService(a)
	cleanup, err := cleanupToRun(a, node)
	if err != nil {
		return fmt.Errorf("%s: %w", addr, err)
	}
	var b strings.Builder
	if s.Pod != nil {
		b.WriteString(removeStaticPod(s))
	} else if s.UnitName != "" {
		fmt.Fprintf(&b, "systemctl disable -q --now %[1]s 2>/dev/null || systemctl stop %[1]s 2>/dev/null || true\n", shell.Quote(s.UnitName))
		fmt.Fprintf(&b, "if [ -f %[1]s ] && grep -qxF %[2]s %[1]s; then rm -f %[1]s; fi\n", shell.Quote(s.unitPath()), shell.Quote(strings.TrimSuffix(unitHeader, "\n")))
		fmt.Fprintf(&b, "rm -f %s\n", shell.Quote(providers.TempName(s.unitPath())))
		fmt.Fprintf(&b, "systemctl daemon-reload; systemctl reset-failed %s 2>/dev/null || true\n", shell.Quote(s.UnitName))
	}
	if cleanup != "" {
		b.WriteString("(\n" + cleanup + "\n) || true\n")
	}
	for _, f := range s.Files {
		fmt.Fprintf(&b, "rm -f %s %s\n", shell.Quote(f.Path), shell.Quote(providers.TempName(f.Path)))
	}
	created := map[string]bool{}
	for _, d := range resources.StringList(a[svcCreatedDirs]) {
		created[d] = true
	}
	for _, d := range resources.StringList(a[svcOwnedData]) {
		if created[d] {
			fmt.Fprintf(&b, "rm -rf %s\n", shell.Quote(d))
		} else {
			fmt.Fprintf(&b, "find %s -mindepth 1 -delete 2>/dev/null || true\n", shell.Quote(d))
		}
	}
	dirs := resources.StringList(a[svcCreatedDirs])
	sort.Sort(sort.Reverse(sort.StringSlice(dirs))) // children first
	for _, d := range dirs {
		fmt.Fprintf(&b, "rmdir %s 2>/dev/null || true\n", shell.Quote(d))
	}
	rc.Progress(addr, "removing "+resources.AttrOr(s.UnitName, s.Component))
	if _, err := resources.RunScript(ctx, conn, b.String(), true); err != nil {
		return fmt.Errorf("%s: removing: %w", addr, err)
	}
	return nil
}

// removeStaleFiles deletes the files a service had and no longer has.
func removeStaleFiles(ctx context.Context, conn providers.Conn, addr string, have, want service) error {
	keep := map[string]bool{}
	for _, f := range want.Files {
		keep[f.Path] = true
	}
	var stale []string
	for _, f := range have.Files {
		if !keep[f.Path] {
			stale = append(stale, f.Path)
		}
	}
	if len(stale) == 0 {
		return nil
	}
	if _, err := resources.RunScript(ctx, conn, "rm -f "+shell.QuoteAll(stale)+"\n", true); err != nil {
		return fmt.Errorf("%s: removing files it no longer has: %w", addr, err)
	}
	return nil
}
