package kube

import (
	"context"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// testMirrors are a registry's mirror over plain HTTP, then one over TLS,
// and every other registry's.
var testMirrors = map[string][]string{
	"registry.k8s.io": {"http://10.77.0.1:5000", "https://mirror.example:5000"},
	"_default":        {"http://10.77.0.1:5000"},
}

// TestContainerdRegistryMirrors: with mirrors, containerd's config.toml
// names config_dir/containerd/certs.d as its CRI plugin's config_path (the
// images plugin's in schema 3), and each registry has its hosts.toml there;
// without them, neither.
func TestContainerdRegistryMirrors(t *testing.T) {
	for _, tc := range []struct{ version, registry string }{
		{"1.31.4", "    conf_dir = \"/etc/cni/net.d\"\n" +
			"  [plugins.\"io.containerd.grpc.v1.cri\".registry]\n" +
			"    config_path = \"/etc/kubernetes/containerd/certs.d\"\n"},
		{"1.36.5", "  sandbox = \"registry.k8s.io/pause:3.10.2\"\n\n" +
			"[plugins.'io.containerd.cri.v1.images'.registry]\n" +
			"  config_path = \"/etc/kubernetes/containerd/certs.d\"\n\n" +
			"[plugins.'io.containerd.cri.v1.runtime']\n"},
	} {
		c := &resources.Cluster{KubernetesVersion: tc.version, ConfigDir: "/etc/kubernetes"}
		without := containerdSpec(c)
		if len(without.Files) != 2 || strings.Contains(containerdConfig(c), "config_path") {
			t.Errorf("%s without mirrors: files %v, config:\n%s", tc.version, without.Files, containerdConfig(c))
		}
		c.Runtime.RegistryMirrors = testMirrors
		if got := containerdConfig(c); !strings.Contains(got, tc.registry) {
			t.Errorf("%s: config.toml lacks\n%s\nin\n%s", tc.version, tc.registry, got)
		}
		s := containerdSpec(c)
		if len(s.Files) != 4 || s.Files[1].Path != FlannelCNIConfigPath {
			t.Fatalf("%s: containerd's files %v", tc.version, s.Files)
		}
		for i, want := range []serviceFile{
			{Path: "/etc/kubernetes/containerd/certs.d/_default/hosts.toml", Mode: "0644", Content: `# The mirrors of every registry without a directory here (eggo), tried in order before it.

[host."http://10.77.0.1:5000"]
  capabilities = ["pull", "resolve"]
`},
			{Path: "/etc/kubernetes/containerd/certs.d/registry.k8s.io/hosts.toml", Mode: "0644", Content: `# The mirrors of registry.k8s.io (eggo), tried in order before it.

[host."http://10.77.0.1:5000"]
  capabilities = ["pull", "resolve"]

[host."https://mirror.example:5000"]
  capabilities = ["pull", "resolve"]
`},
		} {
			if got := s.Files[2+i]; got.Path != want.Path || got.Mode != want.Mode || got.Content != want.Content {
				t.Errorf("%s: file %d is\n%+v\nwant\n%+v", tc.version, 2+i, got, want)
			}
		}
	}
	if got := tomlString("a\"b\\c\n"); got != `"a\"b\\c\u000A"` {
		t.Errorf("tomlString = %s", got)
	}
}

// TestContainerdMirrorsChangePlansAnUpdate: adding, changing and removing
// a registry's mirrors updates containerd on each Node — its files
// written or removed, and containerd restarted — and the record of a
// containerd with mirrors passes the record check.
func TestContainerdMirrorsChangePlansAnUpdate(t *testing.T) {
	with := func(m map[string][]string) resources.Desired {
		c := upgradeCluster("1.36.5", "")
		c.Runtime.RegistryMirrors = m
		return containerdOf(t, c)
	}
	rc := resources.NewRunContext(nil, nil)
	defer rc.Close()
	rc.RecordedAt = func(string) (resources.Object, bool) { return resources.Object{}, false }
	plan := func(prior *resources.Object, d resources.Desired) resources.Change {
		ch, err := Service{}.Plan(context.Background(), rc, prior, d)
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	const (
		config = "/etc/kubernetes/containerd/config.toml"
		k8s    = "/etc/kubernetes/containerd/certs.d/registry.k8s.io/hosts.toml"
		def    = "/etc/kubernetes/containerd/certs.d/_default/hosts.toml"
	)
	none, two := with(nil), with(testMirrors)
	one := with(map[string][]string{"registry.k8s.io": {"http://10.77.0.1:5000"}})
	for _, tc := range []struct {
		name     string
		from, to resources.Desired
		want     string
	}{
		{"mirrors added", none, two, "files +" + def + ", +" + k8s + ", ~" + config},
		{"a registry's mirrors changed, another's dropped", two, one, "files -" + def + ", ~" + k8s},
		{"mirrors removed", one, none, "files -" + k8s + ", ~" + config},
	} {
		ch := plan(recorded(tc.from, healthyLive(tc.from)), tc.to)
		if ch.Action != resources.Update || !strings.Contains(reasonText(ch), tc.want) || !strings.Contains(reasonText(ch), "restarts containerd.service") {
			t.Errorf("%s: %s (%s), want an update saying %q and restarting containerd", tc.name, ch.Action, reasonText(ch), tc.want)
		}
	}
	if ch := plan(recorded(two, healthyLive(two)), two); ch.Action != resources.NoOp {
		t.Errorf("the same mirrors: %s (%s)", ch.Action, reasonText(ch))
	}
	rec := recorded(two, nil)
	if err := (Service{}).CheckRecord(*rec); err != nil {
		t.Errorf("the record of a containerd with mirrors: %v", err)
	}
	modes := rec.Attrs[svcFileModes].(map[string]any)
	modes["/etc/kubernetes/containerd/certs.d/x/y/hosts.toml"] = "0644"
	if err := (Service{}).CheckRecord(*rec); err == nil {
		t.Error("a hosts.toml below another directory passes the record check")
	}
}

// TestRegistryMirrorsCheckedAgain: a Cluster built without engine/config
// cannot make containerd write outside its registry host directory.
func TestRegistryMirrorsCheckedAgain(t *testing.T) {
	for _, m := range []map[string][]string{
		{"../../etc": {"http://10.77.0.1:5000"}},
		{"registry.k8s.io": {"http://10.77.0.1:5000\n[host.\"x\"]"}},
		{"registry.k8s.io": {}},
	} {
		c := upgradeCluster("1.36.5", "")
		c.Runtime.RegistryMirrors = m
		if _, err := componentServices(c); err == nil || !strings.Contains(err.Error(), `service.containerd["m0"]`) {
			t.Errorf("%q: %v, want an error", m, err)
		}
	}
}
