package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources/hook"
	"github.com/eggo-project/eggo/resources/hookcheck"
	"github.com/eggo-project/eggo/resources/hookrun"
)

func hookByName(t *testing.T, c *Config, name string) hook.Hook {
	t.Helper()
	for _, h := range c.Hooks {
		if h.Name == name {
			return h
		}
	}
	t.Fatalf("no hook %q in %+v", name, c.Hooks)
	return hook.Hook{}
}

func ev(t hook.Timing, op hook.Operation) hook.Event {
	return hook.Event{Timing: t, Operation: op}
}

// TestHookDecoding reads every attribute of testdata/valid/hooks.
func TestHookDecoding(t *testing.T) {
	dir, _ := filepath.Abs("testdata/valid/hooks")
	c := mustLoad(t, dir, VarInput{})
	var names []string
	for _, h := range c.Hooks {
		names = append(names, h.Name)
	}
	if want := []string{"prepare", "bootstrap", "drain_notice", "canary", "node_up"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("hooks %v, want declaration order %v", names, want)
	}

	p := hookByName(t, c, "prepare")
	script, _ := os.ReadFile(filepath.Join(dir, "hooks/prejoin.sh"))
	want := hook.Hook{
		Name: "prepare", Source: "main.hcl:17",
		On:   []hook.Event{ev(hook.Pre, hook.Deploy), ev(hook.Pre, hook.Join)},
		Type: hook.TypeShell, Scope: hook.NodeScope,
		Roles:   []string{"worker"},
		Timeout: 2 * time.Minute, Grace: 10 * time.Second,
		Policy: hookrun.Retry, Attempts: 5, Backoff: 2 * time.Second, Fallback: hookrun.Continue,
		Shell: &hook.Shell{
			Path:    filepath.Join(dir, "hooks/prejoin.sh"),
			Scripts: []hookrun.Script{{Name: "prejoin.sh", Content: script}},
			Files:   []hookrun.FileCopy{{Src: filepath.Join(dir, "certs/ca.pem"), Dst: "/etc/hooks/ca.pem"}},
		},
	}
	// The model locates the block and the attributes a placement or run
	// error blames (compared apart: they hold the file's path).
	for attr, line := range map[string]int{"": 17, "on": 18, "roles": 19, "source": 20, "files": 21} {
		if got := p.Ranges.At(attr); got.Start.Line != line || got.Filename != filepath.Join(dir, "main.hcl") {
			t.Errorf("prepare's range of %q is %s (%s), want main.hcl:%d", attr, got, got.Filename, line)
		}
	}
	p.Ranges = want.Ranges
	if !reflect.DeepEqual(p, want) {
		t.Errorf("prepare =\n%+v\nwant\n%+v", p, want)
	}

	b := hookByName(t, c, "bootstrap")
	if b.Scope != hook.ClusterScope || len(b.On) != 1 || b.On[0] != ev(hook.Pre, hook.Deploy) {
		t.Errorf("bootstrap: scope %q on %v", b.Scope, b.On)
	}
	var scripts []string
	for _, s := range b.Shell.Scripts {
		scripts = append(scripts, s.Name)
	}
	if !reflect.DeepEqual(scripts, []string{"10-first.sh", "20-second.sh"}) {
		t.Errorf("directory source: scripts %v, want lexical order without the sub-directory", scripts)
	}

	// Defaults: shell timeout and grace from hookrun, no policy (per operation), no retry settings.
	d := hookByName(t, c, "drain_notice")
	if d.Timeout != hookrun.DefaultTimeout || d.Grace != hookrun.DefaultGrace || d.Policy != "" ||
		d.Attempts != 0 || d.Backoff != 0 || d.Fallback != "" || d.Roles != nil {
		t.Errorf("drain_notice defaults: %+v", d)
	}
	if !reflect.DeepEqual(d.Nodes, []string{"w1"}) {
		t.Errorf("nodes from a reference: %v", d.Nodes)
	}
	if d.PolicyFor(hook.Delete) != hookrun.Continue || d.PolicyFor(hook.Join) != hookrun.Abort {
		t.Errorf("default policies: delete %q join %q", d.PolicyFor(hook.Delete), d.PolicyFor(hook.Join))
	}

	cn := hookByName(t, c, "canary")
	zero := 0
	wantSpec := &hookcheck.Spec{
		Name: "canary",
		Web: &hookcheck.Web{URL: "http://{{ args.svc }}/stats", Method: "POST", Body: "{}", JSONPath: "{$.age}",
			Headers: map[string]string{"Authorization": "Bearer {{ args.token }}"}, Timeout: 5 * time.Second},
		Args:  map[string]string{"svc": "{{ cluster.api_endpoint }}", "token": "t0ken"},
		Count: 3, Interval: 10 * time.Second, InitialDelay: 5 * time.Second, Timeout: 2 * time.Minute,
		SuccessCondition: "asInt(result) < 30", FailureCondition: "asInt(result) > 60",
		FailureLimit: 1, InconclusiveLimit: 2, ConsecutiveErrorLimit: &zero,
	}
	if !reflect.DeepEqual(cn.Check, wantSpec) {
		t.Errorf("canary check =\n%+v\nwant\n%+v", cn.Check, wantSpec)
	}
	if cn.Type != hook.TypeWeb || cn.Shell != nil || cn.Timeout != 2*time.Minute || cn.Grace != 0 || cn.Policy != hookrun.Continue {
		t.Errorf("canary: %+v", cn)
	}

	n := hookByName(t, c, "node_up")
	if n.Type != hook.TypePrometheus || n.Check.Prometheus == nil || n.Check.Prometheus.Timeout != 3*time.Second ||
		n.Check.ConsecutiveErrorLimit != nil || n.Check.Count != 0 || n.Timeout != 0 {
		t.Errorf("node_up: type inferred from its block, defaults left to hookcheck: %+v %+v", n, n.Check)
	}
	// What the engine does per run: fill node values, then render.
	args := hook.ExpandArgs(n.Check.Args, map[string]string{"node.ip": "10.77.0.21"})
	spec, err := hookcheck.Render(*n.Check, args)
	if err != nil || spec.Prometheus.Query != `up{instance="10.77.0.21:9100"}` {
		t.Errorf("render: %v %q", err, spec.Prometheus.Query)
	}
}

// TestHookEventForms: on takes one string or a list; duplicates collapse.
func TestHookEventForms(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"main.hcl": minimal + `
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
hook "a" {
  on     = "post-upgrade"
  source = "s.sh"
}
hook "b" {
  on     = ["pre-cleanup", "pre-cleanup", "post-delete"]
  source = "s.sh"
}
`,
		"s.sh": "true\n",
	})
	c := mustLoad(t, dir, VarInput{})
	if got := c.Hooks[0].On; !reflect.DeepEqual(got, []hook.Event{ev(hook.Post, hook.Upgrade)}) {
		t.Errorf("string on: %v", got)
	}
	if got := c.Hooks[1].On; len(got) != 2 || got[0].String() != "pre-cleanup" || got[1].String() != "post-delete" {
		t.Errorf("list on: %v", got)
	}
}

// TestHookScriptsInHash: a saved plan made with one script must not apply
// after the script changed.
func TestHookScriptsInHash(t *testing.T) {
	files := map[string]string{
		"main.hcl": minimal + `
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
hook "a" {
  on     = "pre-join"
  source = "hooks"
}
`,
		"hooks/10.sh": "echo one\n",
	}
	dir := writeDir(t, files)
	h1 := mustLoad(t, dir, VarInput{}).Hash
	if err := os.WriteFile(filepath.Join(dir, "hooks/10.sh"), []byte("echo two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h2 := mustLoad(t, dir, VarInput{}).Hash; h1 == h2 {
		t.Error("changing a hook script left the configuration hash unchanged")
	}
}

// TestHookWithoutHooks: a configuration without hooks has an empty, non-nil list.
func TestHookWithoutHooks(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.hcl": minimal + `
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
`})
	c := mustLoad(t, dir, VarInput{})
	if c.Hooks == nil || len(c.Hooks) != 0 {
		t.Errorf("hooks = %#v", c.Hooks)
	}
}

// TestHookErrorsNameTheHookNotSecrets: a header built from a sensitive
// variable never shows in a message.
func TestHookErrorsNameTheHookNotSecrets(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.hcl": minimal + `
variable "token" {
  default   = "s3cr3t-token"
  sensitive = true
}
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
hook "canary" {
  on = "post-deploy"
  web {
    url     = "http://x/{{ args.missing }}"
    headers = { Authorization = "Bearer ${var.token}" }
  }
}
`})
	cfg, diags := loadErrors(t, dir, VarInput{})
	out := render(cfg, diags)
	if strings.Contains(out, "s3cr3t") || !strings.Contains(out, `hook "canary"`) {
		t.Errorf("message:\n%s", out)
	}
}
