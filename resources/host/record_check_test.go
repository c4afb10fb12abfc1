package host

import (
	"maps"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

// Every record a host writes passes CheckRecord, the write-ahead one
// included: a file it is about to create is declared in files (as
// missing) before it is recorded as created. Anything else a delete would
// act on is refused.
func TestHostRecordsPassTheirCheck(t *testing.T) {
	f := newHostFixture(t)
	f.bundle("amd64", "opt/new/bin/tool", "tool", 0o755)
	f.bundle("amd64", "etc/app.conf", "eggo's", 0o644)
	f.onHost("etc/app.conf", "operator's")
	d := f.desired(f.cluster(hostTestType, "m0"))
	r := newHostRun(t)
	var intent resources.Attrs
	r.Checkpoint = func(_ string, a resources.Attrs) error { intent = resourcestest.ViaState(t, a); return nil }
	_, done, err := f.apply(r, nil, d)
	if err != nil {
		t.Fatal(err)
	}
	check := func(a resources.Attrs) error {
		return f.host.CheckRecord(resources.Object{Addr: "host.m0", Kind: "host", Node: "m0", Attrs: a})
	}
	for what, a := range map[string]resources.Attrs{"the write-ahead record": intent, "the record": done} {
		if err := check(a); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	tool := f.path("opt/new/bin/tool")
	if files := parseFiles(intent[hostFiles]); len(files) != 1 || files[0].Path != tool || files[0].Drift != driftMissing {
		t.Errorf("the write-ahead record's files = %+v, want the file it creates, missing", files)
	}

	conf := f.path("etc/app.conf")
	for _, c := range []struct {
		name string
		edit func(a resources.Attrs)
		want string
	}{
		{"created file not declared", func(a resources.Attrs) {
			a[hostCreated] = append(a[hostCreated].([]any), map[string]any{"path": "/etc/passwd", "type": "file"})
		}, "the file /etc/passwd is not one the host records installing"},
		{"created path relative", func(a resources.Attrs) {
			a[hostCreated] = append(a[hostCreated].([]any), map[string]any{"path": "../../x", "type": "dir"})
		}, `"../../x" is not an absolute, clean path`},
		{"created path with ..", func(a resources.Attrs) {
			a[hostCreated] = append(a[hostCreated].([]any), map[string]any{"path": tool + "/../../../../etc", "type": "dir"})
		}, "is not an absolute, clean path"},
		{"created root", func(a resources.Attrs) {
			a[hostCreated] = append(a[hostCreated].([]any), map[string]any{"path": "/", "type": "dir"})
		}, `"/" is not an absolute, clean path`},
		{"created of another type", func(a resources.Attrs) {
			a[hostCreated] = append(a[hostCreated].([]any), map[string]any{"path": tool, "type": "link"})
		}, `.type is not "file" or "dir"`},
		{"created null", func(a resources.Attrs) { a[hostCreated] = nil }, "created is null, not a list"},
		{"declared file relative", func(a resources.Attrs) {
			a[hostFiles] = append(a[hostFiles].([]any), map[string]any{"path": "etc/passwd"})
		}, `files[2].path: "etc/passwd" is not an absolute, clean path`},
		{"backup elsewhere", func(a resources.Attrs) {
			a[hostReplaced] = []any{map[string]any{"path": conf, "backup": "/tmp/x", "sha256": sha("x")}}
		}, `the backup of ` + conf + ` is recorded as "/tmp/x"`},
		{"backup missing", func(a resources.Attrs) {
			a[hostReplaced] = []any{map[string]any{"path": conf, "sha256": sha("x")}}
		}, "is recorded as no path"},
		{"original relative", func(a resources.Attrs) {
			a[hostReplaced] = []any{map[string]any{"path": "etc/shadow", "backup": f.host.backupDir + "/etc/shadow", "sha256": sha("x")}}
		}, `replaced[0].path: "etc/shadow" is not an absolute, clean path`},
		{"connection null", func(a resources.Attrs) { a[hostConnection] = nil }, "connection is null, not an object"},
		{"bastion port", func(a resources.Attrs) {
			conn := maps.Clone(a[hostConnection].(map[string]any))
			conn["bastion"] = map[string]any{"host": "b", "port": 1e6}
			a[hostConnection] = conn
		}, "connection.bastion.port is a number, not a whole number from 0 to 65535"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := resourcestest.ViaState(t, done)
			c.edit(a)
			if err := check(a); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
	if _, err := f.delete(newHostRun(t), done); err != nil {
		t.Fatal(err)
	}
}
