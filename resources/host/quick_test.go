package host

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

// pastTick waits out the filesystem's timestamp granularity (a kernel
// tick, a few ms): a same-size rewrite within the tick of eggo's own stat
// is the quick check's documented blind spot, which these tests are not
// about.
func pastTick() { time.Sleep(30 * time.Millisecond) }

// quickBundle is a three-file bundle, created on the host.
func quickBundle(t *testing.T, typ string) (*hostFixture, resources.Desired, resources.Attrs) {
	t.Helper()
	f := newHostFixture(t)
	f.bundle("amd64", "opt/q/a", "content a", 0o644)
	f.bundle("amd64", "opt/q/b", "content b", 0o755)
	f.bundle("amd64", "opt/q/c", "content c", 0o600)
	d := f.desired(f.cluster(typ, "m0"))
	_, attrs, err := f.apply(newHostRun(t), nil, d)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return f, d, attrs
}

// hashedBy runs fn and returns how many files the host hashed meanwhile.
func hashedBy(f *hostFixture, fn func()) int64 {
	before := f.host.probeHashed.Load()
	fn()
	return f.host.probeHashed.Load() - before
}

func TestHostQuickCheckSkipsUnchangedFilesAndFindsChangedOnes(t *testing.T) {
	forEachTransport(t, func(t *testing.T, typ string) {
		f, d, attrs := quickBundle(t, typ)
		stats := parseFileStats(attrs[hostFileStats])
		for _, rel := range []string{"opt/q/a", "opt/q/b", "opt/q/c"} {
			if st := stats[f.path(rel)]; !validStat(st) || statSize(st) != int64(len("content a")) {
				t.Fatalf("create recorded no usable stat for %s: %q (file_stats %v)", rel, st, attrs[hostFileStats])
			}
		}

		// Nothing changed: nothing is hashed, nothing drifts, the plan is a no-op.
		var live resources.Attrs
		var drift []resources.Reason
		if n := hashedBy(f, func() { live, drift = f.refresh(newHostRun(t), attrs) }); n != 0 {
			t.Errorf("refresh of an unchanged host hashed %d files, want 0", n)
		}
		if len(drift) != 0 {
			t.Fatalf("drift on an unchanged host: %+v", drift)
		}
		if ch, _, _ := f.apply(newHostRun(t), &resources.Object{Addr: d.Addr, Attrs: live}, d); ch.Action != resources.NoOp {
			t.Fatalf("plan after a quick refresh = %s %+v", ch.Action, ch.Reasons)
		}

		// a: same size, new content, its old mtime put back (touch -d):
		// ctime still moved. b: same size, plainly rewritten.
		pastTick()
		st, err := os.Stat(f.path("opt/q/a"))
		if err != nil {
			t.Fatal(err)
		}
		resourcestest.WriteFile(t, f.path("opt/q/a"), "CONTENT A", 0o644)
		if err := os.Chtimes(f.path("opt/q/a"), st.ModTime(), st.ModTime()); err != nil {
			t.Fatal(err)
		}
		resourcestest.WriteFile(t, f.path("opt/q/b"), "CONTENT B", 0o755)
		if n := hashedBy(f, func() { live, drift = f.refresh(newHostRun(t), attrs) }); n != 2 {
			t.Errorf("refresh hashed %d files, want only the 2 whose stat moved", n)
		}
		if len(drift) != 1 || !strings.Contains(drift[0].Detail, f.path("opt/q/a")+" (modified)") ||
			!strings.Contains(drift[0].Detail, f.path("opt/q/b")+" (modified)") {
			t.Fatalf("drift = %+v, want a and b modified", drift)
		}
		if _, ok := parseFileStats(live[hostFileStats])[f.path("opt/q/a")]; ok {
			t.Error("a drifted file kept a stat that would vouch for its recorded content")
		}

		// The repair records fresh stats: the next refresh hashes nothing.
		r := newHostRun(t)
		ch, repaired, err := f.apply(r, &resources.Object{Addr: d.Addr, Attrs: live}, d)
		if err != nil || ch.Action != resources.Update {
			t.Fatalf("repair = %s %v", ch.Action, err)
		}
		if r.Pool.Stats().BytesUploaded != int64(2*len("content a")) {
			t.Errorf("repair uploaded %d bytes, want a and b only", r.Pool.Stats().BytesUploaded)
		}
		if n := hashedBy(f, func() { _, drift = f.refresh(newHostRun(t), repaired) }); n != 0 || len(drift) != 0 {
			t.Errorf("refresh after the repair hashed %d files with drift %+v, want 0 and none", n, drift)
		}

		// A chmod is seen (mode is always compared) and its fix records the
		// new ctime.
		pastTick()
		if err := os.Chmod(f.path("opt/q/c"), 0o644); err != nil {
			t.Fatal(err)
		}
		live, drift = f.refresh(newHostRun(t), repaired)
		if len(drift) != 1 || !strings.Contains(drift[0].Detail, f.path("opt/q/c")+" (modified)") {
			t.Fatalf("drift after chmod = %+v", drift)
		}
		_, fixed, err := f.apply(newHostRun(t), &resources.Object{Addr: d.Addr, Attrs: live}, d)
		if err != nil {
			t.Fatal(err)
		}
		if n := hashedBy(f, func() { _, drift = f.refresh(newHostRun(t), fixed) }); n != 0 || len(drift) != 0 {
			t.Errorf("refresh after the chmod fix hashed %d files with drift %+v, want 0 and none", n, drift)
		}

		// A file gone is still found.
		if err := os.Remove(f.path("opt/q/b")); err != nil {
			t.Fatal(err)
		}
		if _, drift = f.refresh(newHostRun(t), fixed); len(drift) != 1 || !strings.Contains(drift[0].Detail, f.path("opt/q/b")+" (missing)") {
			t.Fatalf("drift after removing b = %+v", drift)
		}
	})
}

// An older eggo's record has no file_stats: refresh hashes every file, as
// it always did, and the plan stays a no-op; the next apply that touches
// the host records stats.
func TestHostOldRecordWithoutStatsRefreshesWithoutChange(t *testing.T) {
	forEachTransport(t, func(t *testing.T, typ string) {
		f, d, attrs := quickBundle(t, typ)
		old := resources.Attrs{}
		for k, v := range attrs {
			if k != hostFileStats {
				old[k] = v
			}
		}

		// Planned from the old record as it is (-refresh=false).
		if ch, err := f.host.Plan(context.Background(), nil, &resources.Object{Addr: d.Addr, Attrs: old}, d); err != nil || ch.Action != resources.NoOp {
			t.Fatalf("plan of an old record without refresh = %s %+v %v", ch.Action, ch.Reasons, err)
		}
		var live resources.Attrs
		var drift []resources.Reason
		if n := hashedBy(f, func() { live, drift = f.refresh(newHostRun(t), old) }); n != 3 {
			t.Errorf("refresh of an old record hashed %d files, want all 3", n)
		}
		if len(drift) != 0 {
			t.Fatalf("drift from an old record: %+v", drift)
		}
		r := newHostRun(t)
		ch, _, err := f.apply(r, &resources.Object{Addr: d.Addr, Attrs: live}, d)
		if err != nil || ch.Action != resources.NoOp || len(ch.Changed) != 0 {
			t.Fatalf("plan of a refreshed old record = %s changed %v reasons %+v %v, want a no-op", ch.Action, ch.Changed, ch.Reasons, err)
		}
		if r.Pool.Stats().Writes != 0 {
			t.Error("refreshing an old record wrote to the host")
		}
		if got := parseFileStats(live[hostFileStats]); len(got) != 3 {
			t.Errorf("refresh of an old record found stats for %d files, want 3 (for a later write of state)", len(got))
		}

		// Drift is still found in an old record.
		resourcestest.WriteFile(t, f.path("opt/q/c"), "CONTENT C", 0o600)
		if _, drift = f.refresh(newHostRun(t), old); len(drift) != 1 || !strings.Contains(drift[0].Detail, f.path("opt/q/c")) {
			t.Fatalf("drift in an old record = %+v", drift)
		}

		// An update of the old record (a bundle file changed) records stats
		// for every file, so the refresh after it hashes nothing.
		f.bundle("amd64", "opt/q/a", "content A2", 0o644)
		d = f.desired(f.cluster(typ, "m0"))
		live, _ = f.refresh(newHostRun(t), old)
		_, updated, err := f.apply(newHostRun(t), &resources.Object{Addr: d.Addr, Attrs: live}, d)
		if err != nil {
			t.Fatal(err)
		}
		if got := parseFileStats(updated[hostFileStats]); len(got) != 3 {
			t.Fatalf("update of an old record recorded stats for %d files, want 3: %v", len(got), updated[hostFileStats])
		}
		if n := hashedBy(f, func() { _, drift = f.refresh(newHostRun(t), updated) }); n != 0 || len(drift) != 0 {
			t.Errorf("refresh after updating an old record hashed %d files with drift %+v, want 0 and none", n, drift)
		}
	})
}

// An update that copies one changed file hashes nothing it can vouch for.
func TestHostUpdateQuickChecksUnchangedFiles(t *testing.T) {
	forEachTransport(t, func(t *testing.T, typ string) {
		f, _, attrs := quickBundle(t, typ)
		f.bundle("amd64", "opt/q/b", "content B2", 0o755)
		d := f.desired(f.cluster(typ, "m0"))
		var err error
		var ch resources.Change
		var updated resources.Attrs
		if n := hashedBy(f, func() {
			r := newHostRun(t)
			live, _ := f.refresh(r, attrs)
			ch, updated, err = f.apply(r, &resources.Object{Addr: d.Addr, Attrs: live}, d)
		}); n != 0 {
			t.Errorf("refresh and update of a host whose files are as recorded hashed %d files, want 0", n)
		}
		if err != nil || ch.Action != resources.Update || f.read("opt/q/b") != "content B2" {
			t.Fatalf("update = %s %v", ch.Action, err)
		}
		if st := parseFileStats(updated[hostFileStats])[f.path("opt/q/b")]; statSize(st) != int64(len("content B2")) {
			t.Errorf("stat of the copied file = %q, want one taken after the copy", st)
		}
	})
}

func TestHostQuickCheckIgnoresUnusableStats(t *testing.T) {
	f, _, attrs := quickBundle(t, "local")
	stats := attrs[hostFileStats].(map[string]any)
	stats[f.path("opt/q/a")] = "9 1.5 1.5"      // another size than the record: not trusted
	stats[f.path("opt/q/b")] = "%.9Y ? garbage" // what an odd stat might print
	delete(stats, f.path("opt/q/c"))
	if n := hashedBy(f, func() { f.refresh(newHostRun(t), attrs) }); n != 3 {
		t.Errorf("refresh with unusable stats hashed %d files, want 3", n)
	}
}

func TestValidStat(t *testing.T) {
	for s, want := range map[string]bool{
		"12 1700000000.123456789 1700000001.5": true,
		"12 1700000000 1700000001":             true, // a stat without nanoseconds
		"":                                     false,
		"12 1700000000":                        false,
		"12 1700000000.x 1":                    false,
		"-1 1 1":                               false,
		"12 ? ?":                               false,
		"12 1 1 extra":                         false,
	} {
		if got := validStat(s); got != want {
			t.Errorf("validStat(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestHostProbeParseKnown(t *testing.T) {
	p := hostProbe{files: []string{"/a", "/b", "/c"}, known: map[string]knownFile{"/a": {sha256: sha("a"), stat: "1 2.0 3.0"}}}
	files, _ := p.parse("@f 0 = 644 1 2.0 3.0\n@f 1 = 644 1 2.0 3.0\n@f 2 " + sha("c") + " 755 1 5.0 6.0\n")
	if a := files["/a"]; a.state != sha("a") || a.hashed || a.mode != "0644" || a.stat != "1 2.0 3.0" {
		t.Errorf("/a (vouched for) = %+v", a)
	}
	if _, ok := files["/b"]; ok {
		t.Error("a quick-check answer for a file the probe knew nothing of was taken")
	}
	if c := files["/c"]; c.state != sha("c") || !c.hashed || c.stat != "1 5.0 6.0" {
		t.Errorf("/c (hashed) = %+v", c)
	}
	if script := p.script(); !strings.Contains(script, "pf '/a' 0 '1 2.0 3.0'\n") || !strings.Contains(script, "pf '/b' 1\n") {
		t.Errorf("script does not pass the known stat of /a only:\n%s", script)
	}
}
