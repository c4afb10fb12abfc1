package command

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/resources"
)

var update = flag.Bool("update", false, "rewrite golden files")

func file(path, sum string, mode string, size float64) map[string]any {
	return map[string]any{"path": path, "sha256": sum, "mode": mode, "size": size}
}

func step(addr string, a resources.Action, before, after resources.Attrs, reasons ...resources.Reason) *engine.Step {
	kind, node := splitAddr(addr)
	return &engine.Step{Change: resources.Change{Addr: addr, Kind: kind, Node: node, Action: a,
		Before: before, After: after, Reasons: reasons}}
}

func splitAddr(addr string) (string, string) {
	if i := strings.IndexByte(addr, '.'); i > 0 {
		return addr[:i], addr[i+1:]
	}
	return addr, ""
}

func reason(code, detail string) resources.Reason {
	return resources.Reason{Code: code, Detail: detail}
}

// goldenPlans are hand-built plans covering every action and the parts of
// a step a view renders. Paths are fixed so the output is stable.
func goldenPlans() map[string]*engine.Plan {
	filesBefore := []any{
		file("/etc/eggo/motd", "aaaa", "0644", 12),
		file("/usr/bin/kubelet", "bbbb", "0755", 4096),
		file("/usr/bin/old-tool", "cccc", "0755", 100),
	}
	filesAfter := []any{
		file("/etc/eggo/motd", "aaaa", "0644", 12),
		file("/usr/bin/kubelet", "dddd", "0750", 8192),
		file("/usr/bin/new-tool", "eeee", "0755", 200),
	}
	update := step("host.worker-0", resources.Update,
		resources.Attrs{"address": "10.0.0.21", "roles": []any{"worker"}, "files": filesBefore, "labels": map[string]any{"zone": "a"}},
		resources.Attrs{"address": "10.0.0.21", "roles": []any{"worker"}, "files": filesAfter, "labels": map[string]any{"zone": "b"}},
		reason(resources.ReasonConfig, "files, labels"), reason(resources.ReasonDrift, "/usr/bin/kubelet (modified)"))
	update.Changed = []string{"files", "labels"}

	secretUpdate := step("test.token", resources.Update,
		resources.Attrs{"value": "1", "secret": "old-secret-value"},
		resources.Attrs{"value": "2", "secret": "new-secret-value"},
		reason(resources.ReasonConfig, "value, secret"))
	secretUpdate.Sensitive = []string{"secret"}
	secretCreate := step("test.key", resources.Create, nil,
		resources.Attrs{"secret": "created-secret-value", "value": "k"}, reason(resources.ReasonNew, ""))
	secretCreate.Sensitive = []string{"secret"}

	return map[string]*engine.Plan{
		"text": textPlan(),
		"mixed": {
			Steps: []*engine.Step{
				step("host.master-0", resources.Create, nil,
					resources.Attrs{"address": "10.0.0.11", "roles": []any{"master", "etcd"}, "labels": map[string]any{},
						"files": []any{file("/usr/bin/kubelet", "dddd", "0750", 8192)}, "facts": resources.Unknown{}},
					reason(resources.ReasonNew, "")),
				step("host.master-1", resources.NoOp,
					resources.Attrs{"address": "10.0.0.12"}, resources.Attrs{"address": "10.0.0.12"}),
				step("host.master-2", resources.Replace,
					resources.Attrs{"address": "10.0.0.13", "arch": "amd64"},
					resources.Attrs{"address": "10.0.0.13", "arch": "arm64"},
					reason(resources.ReasonConfig, "arch"), reason(resources.ReasonReplaceRequested, "-replace=host.master-2")),
				step("host.old", resources.Delete,
					resources.Attrs{"address": "10.0.0.99", "roles": []any{"worker"}}, nil,
					reason(resources.ReasonRemoved, "not in the configuration")),
				update,
			},
			Warnings: []string{"Resource targeting is in effect (host.worker-0): the plan may be incomplete; use -target only to recover from errors."},
		},
		"sensitive": {Steps: []*engine.Step{secretCreate, secretUpdate}},
		"nochanges": {Steps: []*engine.Step{
			step("host.master-1", resources.NoOp, resources.Attrs{"address": "10.0.0.12"}, resources.Attrs{"address": "10.0.0.12"}),
		}},
	}
}

// unitText is a systemd unit with one flag that differs between versions.
func unitText(port string) string {
	return "[Unit]\nDescription=Kubernetes API server (eggo)\nWants=network-online.target\nAfter=network-online.target\n\n" +
		"[Service]\nExecStart=/usr/local/bin/kube-apiserver \\\n  --advertise-address=10.0.0.11 \\\n  --secure-port=" + port + " \\\n" +
		"  --etcd-servers=https://10.0.0.11:2379\nRestart=always\nRestartSec=5\nLimitNOFILE=1048576\n\n" +
		"[Install]\nWantedBy=multi-user.target\n"
}

// textPlan holds multi-line strings: created (a heredoc, including a line
// that is the default delimiter), changed in one line (a line diff with the
// far unchanged lines hidden), and added to an empty value.
func textPlan() *engine.Plan {
	unitUpdate := step(`service.kube-apiserver["m0"]`, resources.Update,
		resources.Attrs{"unit": unitText("6443"), "unit_name": "kube-apiserver.service", "version": "1.31.4"},
		resources.Attrs{"unit": unitText("6444"), "unit_name": "kube-apiserver.service", "version": "1.31.5"},
		reason(resources.ReasonConfig, "unit, version"))
	unitUpdate.Changed = []string{"unit", "version"}
	hookUpdate := step(`service.kubelet["w0"]`, resources.Update,
		resources.Attrs{"post_start": ""},
		resources.Attrs{"post_start": "set -e\nkubectl uncordon w0\n"},
		reason(resources.ReasonConfig, "post_start"))
	hookUpdate.Changed = []string{"post_start"}
	return &engine.Plan{Steps: []*engine.Step{
		step(`service.kubelet["w1"]`, resources.Create, nil, resources.Attrs{
			"unit":    "[Unit]\nDescription=kubelet\n\n[Service]\nExecStart=/usr/local/bin/kubelet\n",
			"cleanup": "cat <<EOT >/tmp/x\n\tkeep the tab\nEOT\nrm /tmp/x",
			"health":  "curl -fs http://127.0.0.1:10248/healthz",
		}, reason(resources.ReasonNew, "")),
		unitUpdate,
		hookUpdate,
	}}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./command/ -run Golden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (rerun with -update if the change is intended)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

func TestPlanGolden(t *testing.T) {
	for name, p := range goldenPlans() {
		t.Run(name, func(t *testing.T) {
			var human strings.Builder
			renderPlan(&human, p, colorizer(false))
			checkGolden(t, filepath.Join("testdata", "plan", name+".golden"), []byte(human.String()))

			var js bytes.Buffer
			(&jsonView{out: &js}).Plan(p)
			checkGolden(t, filepath.Join("testdata", "plan", name+".json.golden"), js.Bytes())

			for _, secret := range []string{"old-secret-value", "new-secret-value", "created-secret-value"} {
				if strings.Contains(human.String(), secret) || strings.Contains(js.String(), secret) {
					t.Fatalf("sensitive value %q rendered", secret)
				}
			}
		})
	}
}

// TestSensitiveRendering checks the redaction directly, independent of
// what the golden files hold.
func TestSensitiveRendering(t *testing.T) {
	p := goldenPlans()["sensitive"]
	var human strings.Builder
	renderPlan(&human, p, colorizer(false))
	mustContain(t, "plan", human.String(), `+ secret = (sensitive value)`, `~ secret = (sensitive value)`, `~ value  = "1" -> "2"`)
	var js bytes.Buffer
	(&jsonView{out: &js}).Plan(p)
	mustContain(t, "json", js.String(), `"secret":"(sensitive value)"`)
	for _, secret := range []string{"old-secret-value", "new-secret-value", "created-secret-value"} {
		if strings.Contains(human.String()+js.String(), secret) {
			t.Fatalf("sensitive value %q rendered:\n%s\n%s", secret, human.String(), js.String())
		}
	}
}
