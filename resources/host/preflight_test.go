package host

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseFacts(t *testing.T) {
	out := "os=debian\nos_version=12\nos_name=Debian GNU/Linux 12 (bookworm)\nmachine=aarch64\nkernel=6.1.0\n" +
		"hostname=m0\nresolves=no\ncgroup=v2\nmissing_command=getent\nmissing_command=rmdir\ntime=1700000000.250000000\n" +
		"df=/usr/local/bin\t/dev/vda 264212084 12059520 83441744 13% /\n" +
		"df=/data/x\t/dev/vdb 100 90 10 90% /mnt/my data\n" +
		"@f 0 missing\n"
	f := parseFacts(out)
	want := map[string]any{"os": "debian", "os_version": "12", "os_name": "Debian GNU/Linux 12 (bookworm)",
		"machine": "aarch64", "arch": "arm64", "kernel": "6.1.0", "hostname": "m0", "cgroup": "v2"}
	if got := f.attr(); !reflect.DeepEqual(got, want) {
		t.Errorf("facts = %v, want %v", got, want)
	}
	if f.resolves || !reflect.DeepEqual(f.missingCommands, []string{"getent", "rmdir"}) {
		t.Errorf("resolves %v, missing %v", f.resolves, f.missingCommands)
	}
	if !f.remoteTime.Equal(time.Unix(1700000000, 250000000)) {
		t.Errorf("time = %v", f.remoteTime)
	}
	wantDisks := []hostDisk{{"/usr/local/bin", "/", 83441744}, {"/data/x", "/mnt/my data", 10}}
	if !reflect.DeepEqual(f.disks, wantDisks) {
		t.Errorf("disks = %+v, want %+v", f.disks, wantDisks)
	}
	if got := parseEpoch("1700000000.N"); !got.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("a date without %%N support = %v", got)
	}
}

func TestPreflight(t *testing.T) {
	now := time.Unix(1700000000, 0)
	fit := func() *hostFactsData {
		return &hostFactsData{machine: "x86_64", hostname: "m0", resolves: true, remoteTime: now.Add(20 * time.Second), localTime: now,
			disks: []hostDisk{{"/usr/bin", "/", 1000}, {"/data", "/data", 1}}}
	}
	small := []bundleFile{{Path: "/usr/bin/a", Size: 500 * 1024}}
	tests := []struct {
		name  string
		edit  func(f *hostFactsData)
		files []bundleFile
		want  []string
	}{
		{"fit", func(*hostFactsData) {}, small, nil},
		{"everything wrong", func(f *hostFactsData) {
			f.machine, f.resolves, f.missingCommands = "aarch64", false, []string{"getent", "rmdir"}
			f.remoteTime = now.Add(-45 * time.Second)
		}, []bundleFile{{Path: "/usr/bin/a", Size: 600 * 1024}, {Path: "/usr/bin/b", Size: 400 * 1024}, {Path: "/data/c", Size: 2048}}, []string{
			"arch is arm64, node says amd64",
			"hostname m0 does not resolve (getent hosts m0)",
			"missing commands: getent, rmdir",
			"clock is 45s behind this machine (limit 30s)",
			"1000 KB free on /, needs 1.07 MB (bundle 1000 KB + 10%)",
			"1 KB free on /data, needs 2 KB (bundle 2 KB + 10%)",
		}},
		{"room for the bundle but not the reserve", func(*hostFactsData) {}, []bundleFile{{Path: "/usr/bin/a", Size: 950 * 1024}},
			[]string{"1000 KB free on /, needs 1.02 MB (bundle 950 KB + 10%)"}},
		{"no clock", func(f *hostFactsData) { f.remoteTime = time.Time{} }, nil, []string{"could not read the clock (date +%s.%N)"}},
		{"no free space figure", func(*hostFactsData) {}, []bundleFile{{Path: "/elsewhere/x", Size: 1}}, []string{"could not read free space for /elsewhere"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fit()
			tt.edit(f)
			if got := preflight(f, "amd64", tt.files); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("preflight =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestHostProbeParse(t *testing.T) {
	p := hostProbe{files: []string{"/a b", "/it's"}, dirs: []string{"/d"}}
	files, dirs := p.parse("os=x\n@f 1 " + sha("x") + " 4755\n@f 0 missing\n@d 0 dir\n@f 9 junk\n")
	if files["/a b"].state != probeMissing || files["/it's"] != (probedFile{state: sha("x"), mode: "0755", hashed: true}) || dirs["/d"] != probeDir || len(files) != 2 {
		t.Fatalf("parse = %v %v", files, dirs)
	}
	if !strings.Contains(p.script(), `'/it'\''s'`) {
		t.Fatalf("a quote in a path is not escaped:\n%s", p.script())
	}
}
