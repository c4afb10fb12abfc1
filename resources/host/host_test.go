package host

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

func TestHostExpand(t *testing.T) {
	f := newHostFixture(t)
	f.bundle("amd64", "usr/local/bin/etcd", "etcd-amd64", 0o755)
	f.bundle("amd64", "etc/eggo/a.conf", "conf", 0o600)
	f.bundle("arm64", "usr/local/bin/etcd", "etcd-arm64", 0o755)

	c := f.cluster("ssh", "m0", "m1", "m2", "a0", "a1")
	c.Nodes[0].Roles = []string{"etcd"} // etcd is an etcd node's file
	c.Nodes[3].Arch, c.Nodes[4].Arch = "arm64", "arm64"
	c.Nodes[3].Roles, c.Nodes[4].Roles = []string{"etcd"}, []string{"etcd"}
	c.Nodes[1].DependsOn = []string{"m0"}
	ds, err := f.host.Expand(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.host.hashed.Load(); got != 3 {
		t.Errorf("hashed %d files for 5 nodes of 2 arches with 3 bundle files, want 3 (once per arch)", got)
	}
	if len(ds) != 5 || ds[0].Addr != "host.m0" || ds[0].Kind != "host" || ds[0].Node != "m0" || ds[0].Source != "test.hcl:1" {
		t.Fatalf("Expand = %+v", ds)
	}
	if !reflect.DeepEqual(ds[1].DependsOn, []string{"host.m0"}) {
		t.Errorf("DependsOn = %v, want [host.m0]", ds[1].DependsOn)
	}
	want := []any{
		map[string]any{"path": f.path("etc/eggo/a.conf"), "sha256": sha("conf"), "mode": "0600", "size": 4.0},
		map[string]any{"path": f.path("usr/local/bin/etcd"), "sha256": sha("etcd-amd64"), "mode": "0755", "size": 10.0},
	}
	if got := ds[0].Attrs[hostFiles]; !reflect.DeepEqual(got, want) {
		t.Errorf("files of an amd64 node = %#v\nwant (sorted by path) %#v", got, want)
	}
	if got := parseFiles(ds[3].Attrs[hostFiles]); len(got) != 1 || got[0].SHA256 != sha("etcd-arm64") {
		t.Errorf("files of an arm64 node = %+v", got)
	}
	a := ds[0].Attrs
	if got := parseFiles(ds[1].Attrs[hostFiles]); len(got) != 1 || got[0].Path != f.path("etc/eggo/a.conf") {
		t.Errorf("files of an amd64 worker = %+v, want only the file no role claims", got)
	}
	if a[hostArch] != "amd64" || a[hostAddress] != "10.77.0.11" || !reflect.DeepEqual(a[hostRoles], []any{"etcd"}) {
		t.Errorf("attrs = %#v", a)
	}
	if !reflect.DeepEqual(resourcestest.ViaState(t, a), resources.Attrs(resources.Normalize(a).(map[string]any))) {
		t.Error("desired attributes change through a JSON round trip: they are not JSON values")
	}
	if src, err := f.host.source(parseFiles(a[hostFiles])[1]); err != nil {
		t.Errorf("no local source after Expand: %v", err)
	} else {
		src.Close()
	}
}

func TestHostExpandErrors(t *testing.T) {
	tests := []struct {
		name  string
		setup func(f *hostFixture, c *resources.Cluster)
		want  []string
	}{
		{"missing arch dir", func(f *hostFixture, c *resources.Cluster) {
			f.bundle("amd64", "usr/bin/x", "x", 0o755)
			c.Nodes[0].Arch = "arm64"
		}, []string{"host.m0", "arm64", "/arm64", "does not exist"}},
		{"no address", func(f *hostFixture, c *resources.Cluster) { c.Nodes[0].Address = "" }, []string{"test.hcl:1: host.m0:", "address"}},
		{"special file in bundle", func(f *hostFixture, c *resources.Cluster) {
			f.bundle("amd64", "usr/bin/x", "x", 0o755)
			if err := symlinkDir(f); err != nil {
				t.Skip(err)
			}
		}, []string{"host.m0", "regular files"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newHostFixture(t)
			c := f.cluster("ssh", "m0")
			tt.setup(f, c)
			_, err := f.host.Expand(c)
			if err == nil {
				t.Fatal("Expand succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestHostExpandWithoutPackages(t *testing.T) {
	f := newHostFixture(t)
	c := f.cluster("ssh", "m0")
	c.Packages = ""
	ds, err := f.host.Expand(c)
	if err != nil {
		t.Fatal(err)
	}
	if files := ds[0].Attrs[hostFiles]; !reflect.DeepEqual(files, []any{}) {
		t.Fatalf("files without packages = %#v, want []", files)
	}
}

func TestHostPlan(t *testing.T) {
	f := newHostFixture(t)
	f.bundle("amd64", "usr/bin/a", "a", 0o755)
	f.bundle("amd64", "usr/bin/b", "b", 0o755)
	desired := f.desired(f.cluster("ssh", "m0"))
	recorded := func(edit func(a resources.Attrs)) *resources.Object {
		a := resourcestest.ViaState(t, plannedAttrs(desired.Attrs, nil, true))
		a[hostFacts] = map[string]any{"os": "debian"}
		a[hostCreated] = []any{}
		a[hostReplaced] = []any{}
		if edit != nil {
			edit(a)
		}
		return &resources.Object{Addr: desired.Addr, Kind: "host", Node: "m0", Attrs: a}
	}
	files := func(a resources.Attrs) []any { return a[hostFiles].([]any) }
	conn := func(a resources.Attrs) map[string]any { return a[hostConnection].(map[string]any) }

	tests := []struct {
		name    string
		prior   *resources.Object
		action  resources.Action
		codes   []string
		detail  string // a substring of the reasons' details
		changed []string
	}{
		{"new", nil, resources.Create, []string{resources.ReasonNew}, "", nil},
		{"interrupted create", &resources.Object{Pending: true}, resources.Create, []string{resources.ReasonPending}, "", nil},
		{"unchanged", recorded(nil), resources.NoOp, nil, "", nil},
		{"facts change only", recorded(func(a resources.Attrs) { a[hostFacts] = map[string]any{"os": "ubuntu"} }), resources.NoOp, nil, "", nil},
		{"interrupted update", func() *resources.Object { o := recorded(nil); o.Pending = true; return o }(), resources.Update, []string{resources.ReasonPending}, "", nil},
		{"address", recorded(func(a resources.Attrs) { a[hostAddress] = "10.77.0.99" }), resources.Replace, []string{resources.ReasonConfig}, "address 10.77.0.99 → 10.77.0.11", []string{hostAddress}},
		{"arch", recorded(func(a resources.Attrs) { a[hostArch] = "arm64" }), resources.Replace, []string{resources.ReasonConfig}, "arch arm64 → amd64", []string{hostArch}},
		{"connection type", recorded(func(a resources.Attrs) { conn(a)["type"] = "local" }), resources.Replace, []string{resources.ReasonConfig}, "connection.type local → ssh", []string{hostConnection}},
		{"file added", recorded(func(a resources.Attrs) { a[hostFiles] = files(a)[:1] }), resources.Update, []string{resources.ReasonConfig},
			"files (+ " + f.path("usr/bin/b") + ")", []string{hostFiles}},
		{"file changed and removed", recorded(func(a resources.Attrs) {
			fs := files(a)
			fs[1].(map[string]any)["sha256"] = sha("old b")
			a[hostFiles] = append(fs, map[string]any{"path": f.path("usr/bin/c"), "sha256": sha("c"), "mode": "0755", "size": 1.0})
		}), resources.Update, []string{resources.ReasonConfig}, "files (~ " + f.path("usr/bin/b") + ", - " + f.path("usr/bin/c") + ")", []string{hostFiles}},
		{"mode changed", recorded(func(a resources.Attrs) { files(a)[0].(map[string]any)["mode"] = "0644" }), resources.Update, []string{resources.ReasonConfig},
			"~ " + f.path("usr/bin/a") + " (mode)", []string{hostFiles}},
		{"drift", recorded(func(a resources.Attrs) {
			m := files(a)[0].(map[string]any)
			m["sha256"], m["drift"] = sha("edited"), driftModified
			m = files(a)[1].(map[string]any)
			m["sha256"], m["drift"] = "", driftMissing
		}), resources.Update, []string{resources.ReasonDrift}, f.path("usr/bin/a") + " (modified), " + f.path("usr/bin/b") + " (missing)", []string{hostFiles}},
		{"mode drift", recorded(func(a resources.Attrs) {
			m := files(a)[0].(map[string]any)
			m["mode"], m["drift"] = "0700", driftModified
		}), resources.Update, []string{resources.ReasonDrift}, f.path("usr/bin/a") + " (modified)", []string{hostFiles}},
		{"drift back to desired content", recorded(func(a resources.Attrs) { files(a)[0].(map[string]any)["drift"] = driftModified }), resources.NoOp, nil, "", nil},
		{"roles", recorded(func(a resources.Attrs) { a[hostRoles] = []any{"master"} }), resources.Update, []string{resources.ReasonConfig}, "roles", []string{hostRoles}},
		{"labels", recorded(func(a resources.Attrs) { a[hostLabels] = map[string]any{"zone": "a"} }), resources.Update, []string{resources.ReasonConfig}, "labels", []string{hostLabels}},
		{"connection user", recorded(func(a resources.Attrs) { conn(a)["user"] = "ops" }), resources.Update, []string{resources.ReasonConfig}, "connection", []string{hostConnection}},
		{"pending and drifted", func() *resources.Object {
			o := recorded(func(a resources.Attrs) {
				files(a)[0].(map[string]any)["sha256"], files(a)[0].(map[string]any)["drift"] = "", driftMissing
			})
			o.Pending = true
			return o
		}(), resources.Update, []string{resources.ReasonPending, resources.ReasonDrift}, "(missing)", []string{hostFiles}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := f.host.Plan(context.Background(), nil, tt.prior, desired)
			if err != nil {
				t.Fatal(err)
			}
			if ch.Action != tt.action {
				t.Fatalf("action = %s, want %s (reasons %+v)", ch.Action, tt.action, ch.Reasons)
			}
			if got := reasonCodes(ch.Reasons); !reflect.DeepEqual(got, tt.codes) {
				t.Errorf("reason codes = %v, want %v (%+v)", got, tt.codes, ch.Reasons)
			}
			var details []string
			for _, r := range ch.Reasons {
				details = append(details, r.Detail)
			}
			if !strings.Contains(strings.Join(details, "; "), tt.detail) {
				t.Errorf("reasons %q do not say %q", details, tt.detail)
			}
			if tt.changed != nil && !reflect.DeepEqual(ch.Changed, tt.changed) {
				t.Errorf("changed = %v, want %v", ch.Changed, tt.changed)
			}
			if ch.Addr != "host.m0" || ch.Kind != "host" || ch.Node != "m0" {
				t.Errorf("change identifies %s %s %s", ch.Addr, ch.Kind, ch.Node)
			}
			if tt.action == resources.Create || tt.action == resources.Replace {
				if _, ok := ch.After[hostCreated].(resources.Unknown); !ok {
					t.Errorf("created is %#v before apply, want Unknown", ch.After[hostCreated])
				}
			}
		})
	}
}

func TestHostPlanStateOnlyUpdateKeepsRecords(t *testing.T) {
	f := newHostFixture(t)
	f.bundle("amd64", "usr/bin/a", "a", 0o755)
	desired := f.desired(f.cluster("ssh", "m0"))
	prior := resourcestest.ViaState(t, desired.Attrs)
	prior[hostCreated] = []any{map[string]any{"path": f.path("usr/bin/a"), "type": "file"}}
	prior[hostRoles] = []any{"master"}
	ch, err := f.host.Plan(context.Background(), nil, &resources.Object{Addr: desired.Addr, Attrs: prior}, desired)
	if err != nil || ch.Action != resources.Update {
		t.Fatalf("plan = %v, %v", ch.Action, err)
	}
	if !reflect.DeepEqual(ch.After[hostCreated], prior[hostCreated]) {
		t.Errorf("a roles-only update plans created = %#v, want the recorded list", ch.After[hostCreated])
	}
}
