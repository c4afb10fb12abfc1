package kube

import (
	"maps"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// A service's record passes its check; one whose delete would remove,
// empty or write outside what eggo made is refused, naming what.
func TestServiceRecordCheck(t *testing.T) {
	d := testService("v1", "conf", "cert")
	good := recorded(d, nil)
	good.Attrs[svcCreatedDirs] = []any{"/etc/demo", "/var/lib/kubelet"}
	good.Attrs[svcOwnedData] = []any{"/var/lib/kubelet"}
	if err := (Service{}).CheckRecord(*good); err != nil {
		t.Fatalf("a service's own record: %v", err)
	}
	for _, c := range []struct {
		name, attr string
		value      any
		want       string
	}{
		{"data emptied elsewhere", svcOwnedData, []any{"/home"}, "owned_data[0]: /home is not a component's data directory"},
		{"created dir relative", svcCreatedDirs, []any{"../x"}, `created_dirs[0]: "../x" is not an absolute, clean path`},
		{"created dirs null", svcCreatedDirs, nil, "created_dirs is null, not a list"},
		{"data dir with ..", svcDataDirs, []any{"/var/lib/../../etc"}, "data_dirs[0]: \"/var/lib/../../etc\" is not an absolute, clean path"},
		{"unit a path", svcUnitName, "../../etc/passwd", `unit_name "../../etc/passwd" is not a unit's file name`},
		{"file relative", svcFileModes, map[string]any{"etc/passwd": "0644"}, `file_modes: "etc/passwd" is not an absolute, clean path`},
		{"cleanup not text", svcCleanup, []any{"rm"}, "cleanup is not a string"},
		{"pod's manifests relative", svcStaticPod, map[string]any{"manifest_dir": "manifests"}, `static_pod.manifest_dir: "manifests" is not an absolute, clean path`},
		{"address a list", svcAddress, []any{"10.0.0.1"}, "address is a list, not a string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := *good
			o.Attrs = maps.Clone(good.Attrs)
			o.Attrs[c.attr] = c.value
			for _, k := range []resources.RecordChecker{Service{}, EtcdMember{}} {
				if err := k.CheckRecord(o); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%T: got %v, want %q", k, err, c.want)
				}
			}
		})
	}
}
