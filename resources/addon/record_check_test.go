package addon

import (
	"maps"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

// An add-on's record as eggo writes it passes its check; one whose delete
// would run kubectl as root with another kubeconfig (a credential plugin
// is a command), or reach another host than eggo records, is refused.
func TestAddonRecordCheck(t *testing.T) {
	ds, err := Addon{}.Expand(addonCluster(t))
	if err != nil || len(ds) == 0 {
		t.Fatalf("Expand: %v, %d add-ons", err, len(ds))
	}
	attrs := resources.Substitute(ds[0].Attrs, func(resources.Ref) any { return "input" }).(resources.Attrs)
	attrs[addonObjects] = []any{map[string]any{"api_version": "v1", "kind": "ConfigMap", "namespace": "kube-system", "name": "x"}}
	good := resources.Object{Addr: ds[0].Addr, Kind: "addon", Attrs: resourcestest.ViaState(t, attrs)}
	if err := (Addon{}).CheckRecord(good); err != nil {
		t.Fatalf("eggo's own record: %v", err)
	}
	via := func(k string, v any) map[string]any {
		m := maps.Clone(good.Attrs[addonVia].(map[string]any))
		m[k] = v
		return m
	}
	for _, c := range []struct {
		name, attr string
		value      any
		want       string
	}{
		{"kubeconfig elsewhere", addonVia, via("kubeconfig", "/tmp/evil/plugin.conf"),
			"via.kubeconfig: /tmp/evil/plugin.conf is not CONFIG_DIR/admin.conf, the admin kubeconfig eggo writes on its masters"},
		{"kubeconfig relative", addonVia, via("kubeconfig", "admin.conf"), `via.kubeconfig: "admin.conf" is not an absolute, clean path`},
		{"kubeconfig at /", addonVia, via("kubeconfig", "/admin.conf"), "via.kubeconfig: /admin.conf is not CONFIG_DIR/admin.conf"},
		{"port a string", addonVia, via("connection", map[string]any{"type": "ssh", "port": "22; reboot"}), "via.connection.port is a string, not a whole number"},
		{"address a list", addonVia, via("address", []any{"x"}), "via.address is a list, not a string"},
		{"via a string", addonVia, "m0", "via is not an object"},
		{"object name a number", addonObjects, []any{map[string]any{"kind": "ConfigMap", "name": 7.0}}, "objects[0].name is not a string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := good
			o.Attrs = maps.Clone(good.Attrs)
			o.Attrs[c.attr] = c.value
			if err := (Addon{}).CheckRecord(o); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}
