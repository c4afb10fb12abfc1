package host

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

// hostTransports are the connection types the end-to-end tests run over:
// the sh -c test double always, and the real local provider once it is
// linked in (host_local_test.go adds it).
var hostTransports = []string{hostTestType}

// forEachTransport runs test once per transport.
func forEachTransport(t *testing.T, test func(t *testing.T, typ string)) {
	for _, typ := range hostTransports {
		t.Run(typ, func(t *testing.T) { test(t, typ) })
	}
}

// hostRun is one plan/apply run: a fresh RunContext that captures progress
// and log output.
type hostRun struct {
	*resources.RunContext
	mu       sync.Mutex
	progress []string
	log      bytes.Buffer
}

func newHostRun(t *testing.T) *hostRun {
	r := &hostRun{}
	log := hclog.New(&hclog.LoggerOptions{Output: &syncWriter{mu: &r.mu, w: &r.log}, Level: hclog.Debug})
	r.RunContext = resources.NewRunContext(log, func(addr, msg string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.progress = append(r.progress, addr+": "+msg)
	})
	t.Cleanup(func() { r.Close() })
	return r
}

type syncWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (r *hostRun) logged() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.String()
}

// apply plans and applies desired against prior the way the engine does,
// returning the attrs the engine would record (via the JSON state).
func (f *hostFixture) apply(r *hostRun, prior *resources.Object, d resources.Desired) (resources.Change, resources.Attrs, error) {
	f.t.Helper()
	ctx := context.Background()
	ch, err := f.host.Plan(ctx, r.RunContext, prior, d)
	if err != nil {
		f.t.Fatal(err)
	}
	var a resources.Attrs
	switch ch.Action {
	case resources.Create:
		a, err = f.host.Create(ctx, r.RunContext, d, ch)
	case resources.Update:
		a, err = f.host.Update(ctx, r.RunContext, *prior, d, ch)
	case resources.NoOp:
		a = prior.Attrs
	default:
		f.t.Fatalf("unexpected action %s", ch.Action)
	}
	if a != nil {
		a = resourcestest.ViaState(f.t, a)
	}
	return ch, a, err
}

func (f *hostFixture) refresh(r *hostRun, a resources.Attrs) (resources.Attrs, []resources.Reason) {
	f.t.Helper()
	live, drift, err := f.host.Read(context.Background(), r.RunContext, resources.Object{Addr: "host.m0", Kind: "host", Node: "m0", Attrs: a})
	if err != nil {
		f.t.Fatal(err)
	}
	return resourcestest.ViaState(f.t, live), drift
}

func (f *hostFixture) delete(r *hostRun, a resources.Attrs) (resources.Attrs, error) {
	return f.host.Delete(context.Background(), r.RunContext, resources.Object{Addr: "host.m0", Kind: "host", Node: "m0", Attrs: a})
}

func TestHostLifecycle(t *testing.T) {
	forEachTransport(t, func(t *testing.T, typ string) {
		f := newHostFixture(t)
		f.bundle("amd64", "usr/local/bin/etcd", "etcd v1", 0o755)
		f.bundle("amd64", "usr/local/bin/kubectl", "kubectl v1", 0o750)
		f.bundle("amd64", "etc/eggo/same.conf", "same", 0o644)
		f.bundle("amd64", "etc/eggo/mine.conf", "eggo's", 0o600)
		f.bundle("amd64", "opt/it's odd/a $(file) `x`", "odd", 0o644) // quoting
		f.onHost("etc/eggo/same.conf", "same")                        // already right: not eggo's
		f.onHost("etc/eggo/mine.conf", "operator's")                  // different: moved aside
		f.onHost("usr/share/doc/keep", "someone else's")              // a pre-existing dir eggo writes beside
		f.bundle("amd64", "etc/eggo/exec.sh", "#!/bin/sh", 0o755)
		f.onHost("etc/eggo/exec.sh", "#!/bin/sh") // right content, wrong mode (0644): moved aside too
		before := f.snapshot()
		c := f.cluster(typ, "m0")
		c.Nodes[0].Roles = []string{"etcd", "worker"} // etcd and kubectl are for these roles
		d := f.desired(c)

		// Create.
		r := newHostRun(t)
		ch, attrs, err := f.apply(r, nil, d)
		if err != nil || ch.Action != resources.Create {
			t.Fatalf("create: %v %v", ch.Action, err)
		}
		if f.read("usr/local/bin/etcd") != "etcd v1" || f.read("etc/eggo/mine.conf") != "eggo's" {
			t.Fatal("bundle files not installed")
		}
		if st, _ := os.Stat(f.path("usr/local/bin/kubectl")); st.Mode().Perm() != 0o750 {
			t.Errorf("kubectl mode = %v, want 0750", st.Mode().Perm())
		}
		backup := f.host.backupPath(f.path("etc/eggo/mine.conf"))
		if b, err := os.ReadFile(backup); err != nil || string(b) != "operator's" {
			t.Fatalf("original not kept at %s: %q %v", backup, b, err)
		}
		created := f.createdPaths(attrs)
		for _, want := range []string{"dir /usr/local", "dir /usr/local/bin", "file /usr/local/bin/etcd", "file /usr/local/bin/kubectl", "dir /var/lib/eggo/backup", "file /opt/it's odd/a $(file) `x`"} {
			if !slices.Contains(created, want) {
				t.Errorf("created lacks %q: %v", want, created)
			}
		}
		for _, not := range []string{"file /etc/eggo/same.conf", "file /etc/eggo/mine.conf", "dir /usr", "dir /etc/eggo"} {
			if slices.Contains(created, not) {
				t.Errorf("created holds %q, which eggo did not create", not)
			}
		}
		wantReplaced := []any{map[string]any{"path": f.path("etc/eggo/mine.conf"), "backup": backup, "sha256": sha("operator's")}}
		wantReplaced = append([]any{map[string]any{"path": f.path("etc/eggo/exec.sh"), "backup": f.host.backupPath(f.path("etc/eggo/exec.sh")), "sha256": sha("#!/bin/sh")}}, wantReplaced...)
		if !resources.Equal(attrs[hostReplaced], wantReplaced) {
			t.Errorf("replaced = %#v, want %#v", attrs[hostReplaced], wantReplaced)
		}
		if facts := attrs[hostFacts].(map[string]any); facts["arch"] != "amd64" || facts["hostname"] == "" || facts["kernel"] == "" ||
			facts[resources.HostFactCgroup] != localCgroup(t) {
			t.Errorf("facts = %v, want cgroup %s", facts, localCgroup(t))
		}
		if !slices.Contains(r.progress, "host.m0: copying etcd (7 B)") {
			t.Errorf("progress = %q, want it to report copying etcd", r.progress)
		}
		if s := r.Pool.Stats(); s.BytesUploaded != int64(len("etcd v1kubectl v1eggo'sodd#!/bin/sh")) {
			t.Errorf("uploaded %d bytes, want only the three files that differed", s.BytesUploaded)
		}

		// Refresh and plan again: nothing to do, nothing written.
		r = newHostRun(t)
		runs := hostTestRuns.Load()
		live, drift := f.refresh(r, attrs)
		if typ == hostTestType && hostTestRuns.Load()-runs != 1 {
			t.Errorf("Read ran %d commands, want 1", hostTestRuns.Load()-runs)
		}
		if len(drift) != 0 {
			t.Fatalf("drift right after create: %+v", drift)
		}
		ch, attrs, err = f.apply(r, &resources.Object{Addr: d.Addr, Attrs: live}, d)
		if err != nil || ch.Action != resources.NoOp {
			t.Fatalf("second plan = %s %+v %v, want no-op", ch.Action, ch.Reasons, err)
		}
		if w := r.Pool.Stats().Writes; w != 0 {
			t.Fatalf("refresh and a no-op plan made %d writes", w)
		}

		// Someone edits a file on the host: refresh finds it, update re-copies only it.
		f.onHost("usr/local/bin/etcd", "tampered")
		r = newHostRun(t)
		live, drift = f.refresh(r, attrs)
		if len(drift) != 1 || drift[0].Code != resources.ReasonDrift || !strings.Contains(drift[0].Detail, f.path("usr/local/bin/etcd")+" (modified)") {
			t.Fatalf("drift = %+v, want etcd modified", drift)
		}
		if w := r.Pool.Stats().Writes; w != 0 {
			t.Fatalf("Read made %d writes", w)
		}
		ch, attrs, err = f.apply(r, &resources.Object{Addr: d.Addr, Attrs: live}, d)
		if err != nil || ch.Action != resources.Update || !slices.Equal(reasonCodes(ch.Reasons), []string{resources.ReasonDrift}) {
			t.Fatalf("plan after drift = %s %+v %v", ch.Action, ch.Reasons, err)
		}
		if s := r.Pool.Stats(); s.Writes != 1 || s.BytesUploaded != int64(len("etcd v1")) {
			t.Errorf("update wrote %d times, %d bytes; want etcd only", s.Writes, s.BytesUploaded)
		}
		if f.read("usr/local/bin/etcd") != "etcd v1" {
			t.Fatal("update did not restore etcd")
		}
		if !slices.Contains(f.createdPaths(attrs), "file /usr/local/bin/etcd") {
			t.Error("update forgot that eggo created etcd")
		}
		r = newHostRun(t)
		live, _ = f.refresh(r, attrs)
		if ch, _, _ := f.apply(r, &resources.Object{Addr: d.Addr, Attrs: live}, d); ch.Action != resources.NoOp {
			t.Fatalf("plan after update = %s %+v", ch.Action, ch.Reasons)
		}

		// Someone changes a mode: a chmod fixes it, nothing is copied.
		if err := os.Chmod(f.path("usr/local/bin/kubectl"), 0o700); err != nil {
			t.Fatal(err)
		}
		r = newHostRun(t)
		live, drift = f.refresh(r, attrs)
		if len(drift) != 1 || !strings.Contains(drift[0].Detail, f.path("usr/local/bin/kubectl")+" (modified)") {
			t.Fatalf("drift after chmod = %+v", drift)
		}
		ch, attrs, err = f.apply(r, &resources.Object{Addr: d.Addr, Attrs: live}, d)
		if err != nil || ch.Action != resources.Update {
			t.Fatalf("plan after chmod = %s %+v %v", ch.Action, ch.Reasons, err)
		}
		if s := r.Pool.Stats(); s.Writes != 1 || s.BytesUploaded != 0 {
			t.Errorf("fixing a mode wrote %d times, %d bytes; want one chmod", s.Writes, s.BytesUploaded)
		}
		if st, _ := os.Stat(f.path("usr/local/bin/kubectl")); st.Mode().Perm() != 0o750 {
			t.Errorf("kubectl mode after update = %v, want 0750", st.Mode().Perm())
		}

		// Delete: the tree is exactly as before.
		left, err := f.delete(newHostRun(t), attrs)
		if err != nil || left != nil {
			t.Fatalf("delete = %v, %v", left, err)
		}
		if after := f.snapshot(); after != before {
			t.Fatalf("delete left the root changed\nbefore:\n%s\nafter:\n%s", before, after)
		}
	})
}

func TestHostUpdateBundleChange(t *testing.T) {
	forEachTransport(t, func(t *testing.T, typ string) {
		f := newHostFixture(t)
		f.bundle("amd64", "opt/eggo/old/bin", "old", 0o755)
		f.bundle("amd64", "etc/app.conf", "eggo's", 0o644)
		f.bundle("amd64", "etc/keep.conf", "same", 0o644)
		f.bundle("amd64", "opt/eggo/stays", "stays", 0o644)
		f.onHost("etc/app.conf", "operator's")
		f.onHost("etc/keep.conf", "same")
		before := f.snapshot()
		_, attrs, err := f.apply(newHostRun(t), nil, f.desired(f.cluster(typ, "m0")))
		if err != nil {
			t.Fatal(err)
		}

		// The new bundle drops a file eggo created, one it replaced and one
		// that was already there, and adds one in a new directory.
		for _, rel := range []string{"opt/eggo/old/bin", "etc/app.conf", "etc/keep.conf"} {
			if err := os.Remove(f.packages + "/amd64" + f.path(rel)); err != nil {
				t.Fatal(err)
			}
		}
		f.bundle("amd64", "opt/eggo/new/bin", "new", 0o755)
		d := f.desired(f.cluster(typ, "m0"))
		r := newHostRun(t)
		ch, attrs, err := f.apply(r, &resources.Object{Addr: d.Addr, Attrs: attrs}, d)
		if err != nil || ch.Action != resources.Update {
			t.Fatalf("update = %s %v", ch.Action, err)
		}
		wantDetail := "files (+ " + f.path("opt/eggo/new/bin") + ", - " + f.path("etc/app.conf") +
			", - " + f.path("etc/keep.conf") + ", - " + f.path("opt/eggo/old/bin") + ")"
		if ch.Reasons[0].Detail != wantDetail {
			t.Errorf("reason = %q\nwant     %q", ch.Reasons[0].Detail, wantDetail)
		}
		if f.read("etc/app.conf") != "operator's" {
			t.Error("the original app.conf was not restored when it left the bundle")
		}
		if f.read("etc/keep.conf") != "same" {
			t.Error("a file that was there before eggo was touched")
		}
		if _, err := os.Stat(f.path("opt/eggo/old")); !os.IsNotExist(err) {
			t.Errorf("the directory eggo created for a dropped file is still there: %v", err)
		}
		if f.read("opt/eggo/new/bin") != "new" || f.read("opt/eggo/stays") != "stays" {
			t.Error("bundle not converged")
		}
		created := f.createdPaths(attrs)
		if slices.Contains(created, "dir /opt/eggo/old") || slices.Contains(created, "file /opt/eggo/old/bin") || !slices.Contains(created, "file /opt/eggo/new/bin") {
			t.Errorf("created after update = %v", created)
		}
		if rep := attrs[hostReplaced].([]any); len(rep) != 0 {
			t.Errorf("replaced after restoring = %v", rep)
		}
		if _, err := f.delete(newHostRun(t), attrs); err != nil {
			t.Fatal(err)
		}
		if after := f.snapshot(); after != before {
			t.Fatalf("delete after update left the root changed\nbefore:\n%s\nafter:\n%s", before, after)
		}
	})
}

func TestHostCreateFailsMidCopy(t *testing.T) {
	forEachTransport(t, func(t *testing.T, typ string) {
		f := newHostFixture(t)
		f.bundle("amd64", "usr/bin/a", "a", 0o755)
		f.bundle("amd64", "usr/bin/b", "b", 0o755)
		f.bundle("amd64", "usr/bin/c", "c", 0o755)
		f.bundle("amd64", "etc/b.conf", "eggo's", 0o644)
		f.onHost("etc/b.conf", "operator's")
		before := f.snapshot()
		d := f.desired(f.cluster(typ, "m0"))
		// b changes after the plan read the bundle: its upload fails the
		// checksum on the far side.
		resourcestest.WriteFile(t, f.packages+"/amd64"+f.path("usr/bin/b"), "B!", 0o755)

		_, attrs, err := f.apply(newHostRun(t), nil, d)
		if err == nil {
			t.Fatal("create succeeded with a corrupt bundle file")
		}
		for _, w := range []string{"host.m0 (10.77.0.11)", f.path("usr/bin/b")} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not name %q", err, w)
			}
		}
		if attrs == nil {
			t.Fatal("no partial attrs after a failure mid-copy")
		}
		created := f.createdPaths(attrs)
		if !slices.Contains(created, "file /usr/bin/a") || slices.Contains(created, "file /usr/bin/b") || slices.Contains(created, "file /usr/bin/c") {
			t.Errorf("created after failure = %v, want a but not b or c", created)
		}
		if files := parseFiles(attrs[hostFiles]); len(files) != 2 {
			t.Errorf("files after failure = %+v, want only etc/b.conf and usr/bin/a", files)
		}
		ch, err := f.host.Plan(context.Background(), nil, &resources.Object{Addr: d.Addr, Attrs: attrs}, d)
		if err != nil || ch.Action != resources.Update || !strings.Contains(ch.Reasons[0].Detail, "+ "+f.path("usr/bin/b")) {
			t.Errorf("plan after failure = %s %+v %v", ch.Action, ch.Reasons, err)
		}

		left, err := f.delete(newHostRun(t), attrs)
		if err != nil || left != nil {
			t.Fatalf("delete of partial = %v %v", left, err)
		}
		if after := f.snapshot(); after != before {
			t.Fatalf("delete of a partial create left the root changed\nbefore:\n%s\nafter:\n%s", before, after)
		}
	})
}

func TestHostPreflight(t *testing.T) {
	forEachTransport(t, func(t *testing.T, typ string) {
		f := newHostFixture(t)
		f.bundle("arm64", "usr/bin/a", "a", 0o755)
		f.host.now = func() time.Time { return time.Now().Add(-2 * time.Minute) }
		c := f.cluster(typ, "m0")
		c.Nodes[0].Arch = "arm64"
		r := newHostRun(t)
		before := f.snapshot()
		_, attrs, err := f.apply(r, nil, f.desired(c))
		if err == nil {
			t.Fatal("preflight passed on the wrong arch and a skewed clock")
		}
		// The skew is 2m plus the time between the two clocks' readings,
		// a second or more on a busy machine.
		want := regexp.MustCompile(`^host\.m0 \(10\.77\.0\.11\): preflight failed: arch is amd64, node says arm64; clock is 2m[0-9]s ahead of this machine \(limit 30s\)$`)
		if !want.MatchString(err.Error()) {
			t.Errorf("error = %q\nwant    %s", err, want)
		}
		if attrs != nil || r.Pool.Stats().Writes != 0 || f.snapshot() != before {
			t.Errorf("a failed preflight changed something: attrs %v, writes %d", attrs, r.Pool.Stats().Writes)
		}
	})
}

func TestHostDeleteLeavesForeignFiles(t *testing.T) {
	forEachTransport(t, func(t *testing.T, typ string) {
		f := newHostFixture(t)
		f.bundle("amd64", "opt/eggo/bin/x", "x", 0o755)
		_, attrs, err := f.apply(newHostRun(t), nil, f.desired(f.cluster(typ, "m0")))
		if err != nil {
			t.Fatal(err)
		}
		f.onHost("opt/eggo/bin/theirs", "not eggo's")
		r := newHostRun(t)
		left, err := f.delete(r, attrs)
		if err != nil || left != nil {
			t.Fatalf("delete = %v %v; a non-empty directory must be a warning, not an error", left, err)
		}
		if f.read("opt/eggo/bin/theirs") != "not eggo's" {
			t.Fatal("delete touched a file eggo did not create")
		}
		if _, err := os.Stat(f.path("opt/eggo/bin/x")); !os.IsNotExist(err) {
			t.Error("eggo's file is still there")
		}
		if log := r.logged(); !strings.Contains(log, "not empty") || !strings.Contains(log, f.path("opt/eggo/bin")) {
			t.Errorf("no warning about the kept directory in the log:\n%s", log)
		}
	})
}

func TestHostStateOnlyUpdateDoesNotConnect(t *testing.T) {
	f := newHostFixture(t)
	f.bundle("amd64", "usr/bin/a", "a", 0o755)
	c := f.cluster(hostTestType, "m0")
	_, attrs, err := f.apply(newHostRun(t), nil, f.desired(c))
	if err != nil {
		t.Fatal(err)
	}
	c.Nodes[0].Roles = []string{"master", "etcd"}
	c.Nodes[0].Connection.User = "ops"
	r := newHostRun(t)
	ch, attrs2, err := f.apply(r, &resources.Object{Addr: "host.m0", Attrs: attrs}, f.desired(c))
	if err != nil || ch.Action != resources.Update {
		t.Fatalf("update = %s %v", ch.Action, err)
	}
	if s := r.Pool.Stats(); s.Connections != 0 {
		t.Errorf("a roles and user change connected to the host (%+v)", s)
	}
	if !resources.Equal(attrs2[hostRoles], []any{"master", "etcd"}) || !resources.Equal(attrs2[hostCreated], attrs[hostCreated]) {
		t.Errorf("attrs after state-only update: roles %v, created %v", attrs2[hostRoles], attrs2[hostCreated])
	}
}

func TestHostUnreachable(t *testing.T) {
	f := newHostFixture(t)
	f.bundle("amd64", "usr/bin/a", "a", 0o755)
	c := f.cluster(hostTestType, "m0")
	c.Nodes[0].Address = "unreachable"
	d := f.desired(c)
	r := newHostRun(t)
	ctx := context.Background()
	if _, err := f.host.Create(ctx, r.RunContext, d, resources.Change{}); err == nil || !strings.Contains(err.Error(), "host.m0 (unreachable)") {
		t.Errorf("create on an unreachable host: %v", err)
	}
	recorded := resourcestest.ViaState(t, d.Attrs)
	recorded[hostCreated] = []any{map[string]any{"path": f.path("usr/bin/a"), "type": "file"}}
	if _, _, err := f.host.Read(ctx, r.RunContext, resources.Object{Addr: "host.m0", Node: "m0", Attrs: recorded}); err == nil ||
		!strings.Contains(err.Error(), "host.m0 (unreachable)") {
		t.Errorf("read of an unreachable host: %v", err)
	}
	left, err := f.host.Delete(ctx, r.RunContext, resources.Object{Addr: "host.m0", Node: "m0", Attrs: recorded})
	if err == nil || !strings.Contains(err.Error(), "host.m0 (unreachable)") {
		t.Errorf("delete of an unreachable host: %v", err)
	}
	if !resources.Equal(left, recorded) {
		t.Errorf("delete of an unreachable host forgot what is there: %v", left)
	}
}

// localCgroup is this machine's cgroup hierarchy as the kubelet tells it
// (the sshd the test reaches runs here): v2 when /sys/fs/cgroup is a
// cgroup2 filesystem.
func localCgroup(t *testing.T) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs("/sys/fs/cgroup", &st); err != nil {
		t.Fatal(err)
	}
	if st.Type == 0x63677270 { // CGROUP2_SUPER_MAGIC
		return "v2"
	}
	return "v1"
}
