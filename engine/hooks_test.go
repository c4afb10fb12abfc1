package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hook"
	"github.com/eggo-project/eggo/resources/hookcheck"
	"github.com/eggo-project/eggo/resources/hookrun"
	"github.com/eggo-project/eggo/state"
)

// seq is one ordered log shared by the kinds and the fake hook runner.
type seq struct {
	mu  sync.Mutex
	ops []string
}

func (s *seq) add(op string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, op)
}

func (s *seq) index(t *testing.T, op string) int {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.Index(s.ops, op)
	if i < 0 {
		t.Fatalf("%q never happened; log: %v", op, s.ops)
	}
	return i
}

// seqKind is a test kind that also logs its changes in a shared seq.
type seqKind struct {
	*testKind
	seq *seq
}

func (k seqKind) Create(ctx context.Context, rc *resources.RunContext, d resources.Desired, ch resources.Change) (resources.Attrs, error) {
	k.seq.add("create " + d.Addr)
	return k.testKind.Create(ctx, rc, d, ch)
}

func (k seqKind) Update(ctx context.Context, rc *resources.RunContext, p resources.Object, d resources.Desired, ch resources.Change) (resources.Attrs, error) {
	k.seq.add("update " + d.Addr)
	return k.testKind.Update(ctx, rc, p, d, ch)
}

func (k seqKind) Delete(ctx context.Context, rc *resources.RunContext, p resources.Object) (resources.Attrs, error) {
	k.seq.add("delete " + p.Addr)
	return k.testKind.Delete(ctx, rc, p)
}

// fakeHooks answers hook runs: fail names "hook/node" pairs whose shell
// run fails (the policy then decides, as hookrun does).
type fakeHooks struct {
	seq   *seq
	fail  map[string]bool
	mu    sync.Mutex
	specs []hookrun.Spec
	// phases are the check runs' phases, in order (then Successful).
	phases []hookcheck.Phase
	checks int
}

func (f *fakeHooks) Shell(_ context.Context, _ *resources.RunContext, n hook.Node, spec hookrun.Spec) hookrun.Outcome {
	f.seq.add("hook " + spec.Env["EGGO_HOOK_TYPE"] + " " + spec.Hook + " " + spec.Env["EGGO_OPERATOR"] + " " + n.Name)
	f.mu.Lock()
	f.specs = append(f.specs, spec)
	f.mu.Unlock()
	a := hookrun.Attempt{N: 1, ExitCode: 0, Output: "hello from " + n.Name + "\n"}
	if f.fail[spec.Hook+"/"+n.Name] {
		a.ExitCode, a.Err = 3, errors.New("script x.sh exited with status 3")
		d := hookrun.DecisionAbort
		if spec.Policy == hookrun.Continue {
			d = hookrun.DecisionContinue
		}
		return hookrun.Outcome{Attempts: []hookrun.Attempt{a}, Decision: d, Err: errors.New(`hook "` + spec.Hook + `" on ` + n.Name + ": exit status 3")}
	}
	return hookrun.Outcome{Attempts: []hookrun.Attempt{a}, Decision: hookrun.DecisionOK}
}

func (f *fakeHooks) Check(_ context.Context, spec hookcheck.Spec) hookcheck.Result {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checks++
	if len(f.phases) > 0 {
		ph := f.phases[0]
		f.phases = f.phases[1:]
		return hookcheck.Result{Phase: ph, Message: "measured " + string(ph) + " at " + spec.Web.URL,
			Measurements: []hookcheck.Measurement{{Phase: ph, Value: "7"}}}
	}
	return hookcheck.Result{Phase: hookcheck.PhaseSuccessful, Measurements: []hookcheck.Measurement{{Phase: hookcheck.PhaseSuccessful, Value: "1"}}}
}

// hookRig is a rig with a host kind, a node kind and a fake hook runner.
type hookRig struct {
	*rig
	seq   *seq
	fake  *fakeHooks
	kinds []resources.Kind
}

func newHookRig(t *testing.T) *hookRig {
	r := newRig(t)
	s := &seq{}
	host := &testKind{dir: r.kind.dir, name: "host"}
	return &hookRig{rig: r, seq: s, fake: &fakeHooks{seq: s, fail: map[string]bool{}},
		kinds: []resources.Kind{seqKind{host, s}, seqKind{r.kind, s}}}
}

func (h *hookRig) opts() options {
	o := h.rig.opts()
	o.Kinds, o.hookRunner = h.kinds, h.fake
	return o
}

// plan plans ds against the state and places c's hooks, as Workspace.Plan does.
func (h *hookRig) plan(o options, c *hookedCluster, ds ...resources.Desired) *Plan {
	h.t.Helper()
	p := h.rig.plan(o, ds...)
	prior, err := readStateFile(h.state)
	if err != nil {
		h.t.Fatal(err)
	}
	p.Deploying = deploying(o, prior) && p.HasChanges()
	if err := placeHooks(p, c.Cluster, c.Hooks, p.Deploying); err != nil {
		h.t.Fatalf("placing hooks: %v", err)
	}
	return p
}

// node is a host resource and one resource on it.
func node(name string, attrs resources.Attrs) []resources.Desired {
	role := "worker"
	if name[0] == 'm' {
		role = "master"
	}
	host := resources.Desired{Addr: "host." + name, Kind: "host", Node: name,
		Attrs: resources.Attrs{"address": "10.0.0." + name[1:], "roles": []any{role}}}
	svc := desired("test."+name, attrs, "host."+name)
	svc.Node = name
	return []resources.Desired{host, svc}
}

// hookedCluster is a cluster model with the hooks its configuration has.
type hookedCluster struct {
	*resources.Cluster
	Hooks []hook.Hook
}

func cluster(hooks ...hook.Hook) *hookedCluster {
	return &hookedCluster{Hooks: hooks, Cluster: &resources.Cluster{Name: "demo", APIEndpoint: "10.0.0.1:6443", ConfigDir: "/etc/kubernetes",
		Labels: map[string]string{"zone": "b", "env": "x y"}, Annotations: map[string]string{"owner": "ops"},
		Nodes: []resources.Node{{Name: "m1", Address: "10.0.0.1", Roles: []string{"master", "etcd"}},
			{Name: "w1", Address: "10.0.0.2", Roles: []string{"worker"}}, {Name: "w2", Address: "10.0.0.3", Roles: []string{"worker"}}},
	}}
}

func shellHook(name string, scope hook.Scope, policy hookrun.Policy, events ...string) hook.Hook {
	h := hook.Hook{Name: name, Type: hook.TypeShell, Scope: scope, Policy: policy,
		Shell: &hook.Shell{Scripts: []hookrun.Script{{Name: "x.sh", Content: []byte("env")}}}}
	for _, e := range events {
		ev, ok := hook.ParseEvent(e)
		if !ok {
			panic(e)
		}
		h.On = append(h.On, ev)
	}
	if scope == hook.NodeScope {
		h.Roles = []string{"worker"}
	}
	return h
}

func hookSteps(p *Plan) []string {
	var out []string
	for _, s := range p.Steps {
		if s.Kind == hookKind {
			out = append(out, s.Addr)
		}
	}
	return out
}

func TestHookJoinRunsAroundThatNodeOnly(t *testing.T) {
	h := newHookRig(t)
	o := h.opts()
	c := cluster(shellHook("prep", hook.NodeScope, "", "pre-join", "post-join", "pre-deploy"))
	c.Nodes = c.Nodes[:2]
	h.apply(o, h.plan(o, c, node("m1", nil)...))

	p := h.plan(o, c, append(node("m1", nil), node("w1", nil)...)...)
	if got, want := hookSteps(p), []string{`hook.prep["post-join/w1"]`, `hook.prep["pre-join/w1"]`}; !slices.Equal(got, want) {
		t.Fatalf("hook steps %v, want %v", got, want)
	}
	pre := p.Step(`hook.prep["pre-join/w1"]`)
	if pre.Action != HookRunAction || pre.Node != "w1" || pre.Hook.Event.Operation != hook.Join {
		t.Fatalf("pre step %+v", pre.Change)
	}
	for _, a := range []string{"host.w1", "test.w1"} {
		if !contains(p.Step(a).WaitsFor, pre.Addr) {
			t.Errorf("%s does not wait for the pre-join hook: %v", a, p.Step(a).WaitsFor)
		}
	}
	if post := p.Step(`hook.prep["post-join/w1"]`); !slices.Equal(post.WaitsFor, []string{"host.w1", "test.w1"}) {
		t.Errorf("post-join waits for %v", post.WaitsFor)
	}
	if c := p.Counts(); c.Add != 2 {
		t.Errorf("hooks must not count as resources: %+v", c)
	}

	res := h.apply(o, p)
	if !res.OK() {
		t.Fatalf("apply: %s", FailureSummary(p, res))
	}
	preAt := h.seq.index(t, "hook prehook prep join w1")
	postAt := h.seq.index(t, "hook posthook prep join w1")
	hostAt, svcAt := h.seq.index(t, "create host.w1"), h.seq.index(t, "create test.w1")
	if !(preAt < hostAt && hostAt < svcAt && svcAt < postAt) {
		t.Fatalf("order: pre %d host %d svc %d post %d; log %v", preAt, hostAt, svcAt, postAt, h.seq.ops)
	}
	st, _ := readStateFile(h.state)
	for _, r := range st.Resources {
		if r.Kind == hookKind {
			t.Fatalf("hook %s recorded as a resource", r.Address)
		}
	}
	if len(st.HookRuns) != 2 || st.HookRuns[0].Operator != "join" || st.HookRuns[0].Node != "w1" || st.HookRuns[0].Decision != "ok" ||
		!strings.Contains(st.HookRuns[0].Output, "hello from w1") {
		t.Fatalf("hook runs in state: %+v", st.HookRuns)
	}
	// Environment: what issue 4 lists, for the node and the event.
	env := h.fake.specs[0].Env
	for k, v := range map[string]string{"EGGO_CLUSTER_ID": "demo", "EGGO_CLUSTER_API_ENDPOINT": "10.0.0.1:6443", "EGGO_CLUSTER_CONFIG_DIR": "/etc/kubernetes",
		"EGGO_NODE_IP": "10.0.0.2", "EGGO_NODE_NAME": "w1", "EGGO_NODE_ARCH": "amd64", "EGGO_NODE_ROLE": "worker", "EGGO_HOOK_TYPE": "prehook", "EGGO_OPERATOR": "join"} {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}

	// Nothing changes: no hook runs.
	if p := h.plan(o, c, append(node("m1", nil), node("w1", nil)...)...); len(hookSteps(p)) != 0 || p.HasChanges() {
		t.Fatalf("an unchanged plan places hooks: %v", hookSteps(p))
	}
}

func TestHookOperationDetection(t *testing.T) {
	host := func(a resources.Action) *Step { return &Step{Change: resources.Change{Kind: "host", Action: a}} }
	upgrade := &Step{Change: resources.Change{Kind: "service", Action: resources.Update, Reasons: []resources.Reason{{Code: resources.ReasonUpgrade}}}}
	edit := &Step{Change: resources.Change{Kind: "service", Action: resources.Update, Reasons: []resources.Reason{{Code: resources.ReasonConfig}}}}
	for _, tc := range []struct {
		name                string
		steps               []*Step
		destroy, priorEmpty bool
		want                hook.Operation
	}{
		{"deploy", []*Step{host(resources.Create)}, false, true, hook.Deploy},
		{"join", []*Step{host(resources.Create)}, false, false, hook.Join},
		{"delete", []*Step{host(resources.Delete)}, false, false, hook.Delete},
		{"cleanup", []*Step{host(resources.Delete)}, true, false, hook.Cleanup},
		{"upgrade", []*Step{edit, upgrade}, false, false, hook.Upgrade},
		{"edit", []*Step{edit}, false, false, ""},
	} {
		got, ok := nodeOperation(tc.steps, tc.destroy, tc.priorEmpty)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: got %q %v", tc.name, got, ok)
		}
	}
}

func TestHookDeployDeleteCleanupPlacement(t *testing.T) {
	h := newHookRig(t)
	o := h.opts()
	c := cluster(shellHook("n", hook.NodeScope, "", "pre-deploy", "pre-delete", "post-cleanup"))
	all := append(append(node("m1", nil), node("w1", nil)...), node("w2", nil)...)
	p := h.plan(o, c, all...)
	if got := hookSteps(p); !slices.Equal(got, []string{`hook.n["pre-deploy/w1"]`, `hook.n["pre-deploy/w2"]`}) {
		t.Fatalf("deploy: %v (roles select workers only)", got)
	}
	if res := h.apply(o, p); !res.OK() {
		t.Fatal(FailureSummary(p, res))
	}
	// w2 leaves the configuration: a delete, its node described from state.
	c.Nodes = c.Nodes[:2]
	p = h.plan(o, c, all[:4]...)
	if got := hookSteps(p); !slices.Equal(got, []string{`hook.n["pre-delete/w2"]`}) {
		t.Fatalf("delete: %v", got)
	}
	if pre := p.Step(`hook.n["pre-delete/w2"]`); !contains(p.Step("host.w2").WaitsFor, pre.Addr) || pre.Hook.Node.IP != "10.0.0.2" {
		// host.w2's recorded address attribute was 10.0.0.2 (node() builds it from the name).
		t.Fatalf("delete hook %+v, host.w2 waits for %v", pre.Hook.Node, p.Step("host.w2").WaitsFor)
	}
	if res := h.apply(o, p); !res.OK() {
		t.Fatal(FailureSummary(p, res))
	}
	o.Destroy = true
	p = h.plan(o, c, all[:4]...)
	if got := hookSteps(p); !slices.Equal(got, []string{`hook.n["post-cleanup/w1"]`}) {
		t.Fatalf("cleanup: %v", got)
	}
}

func TestClusterHookOnceOnFirstMaster(t *testing.T) {
	h := newHookRig(t)
	o := h.opts()
	c := cluster(shellHook("c", hook.ClusterScope, "", "pre-deploy", "post-deploy"))
	all := append(append(node("m1", nil), node("w1", nil)...), node("w2", nil)...)
	p := h.plan(o, c, all...)
	if got := hookSteps(p); !slices.Equal(got, []string{`hook.c["post-deploy"]`, `hook.c["pre-deploy"]`}) {
		t.Fatalf("cluster hooks: %v", got)
	}
	post := p.Step(`hook.c["post-deploy"]`)
	if post.Node != "m1" || len(post.WaitsFor) != 6 {
		t.Fatalf("post-deploy on %s waits for %v", post.Node, post.WaitsFor)
	}
	for _, d := range all {
		if !contains(p.Step(d.Addr).WaitsFor, `hook.c["pre-deploy"]`) {
			t.Errorf("%s does not wait for pre-deploy", d.Addr)
		}
	}
	if res := h.apply(o, p); !res.OK() {
		t.Fatal(FailureSummary(p, res))
	}
	if args := h.fake.specs[0].Args; !slices.Equal(args, []string{"env=x y", "zone=b", "owner=ops"}) {
		t.Fatalf("cluster hook args %q: labels then annotations, each sorted", args)
	}
}

func TestHookAbortSkipsExactlyItsDependents(t *testing.T) {
	h := newHookRig(t)
	o := h.opts()
	c := cluster(shellHook("gate", hook.NodeScope, "", "pre-join", "post-join"))
	h.apply(o, h.plan(o, c, node("m1", nil)...))
	h.fake.fail["gate/w1"] = true
	all := append(append(node("m1", nil), node("w1", nil)...), node("w2", nil)...)
	p := h.plan(o, c, all...)
	res := h.apply(o, p)
	pre := `hook.gate["pre-join/w1"]`
	if _, failed := res.Failed[pre]; !failed || len(res.Failed) != 1 {
		t.Fatalf("failed: %v", res.Failed)
	}
	want := map[string]string{"host.w1": pre, "test.w1": pre, `hook.gate["post-join/w1"]`: pre}
	if len(res.Skipped) != len(want) {
		t.Fatalf("skipped %v, want %v", res.Skipped, want)
	}
	for a, cause := range want {
		if res.Skipped[a] != cause {
			t.Errorf("%s skipped for %q, want %q", a, res.Skipped[a], cause)
		}
	}
	if !slices.Contains(res.Applied, "test.w2") || !slices.Contains(res.Applied, `hook.gate["post-join/w2"]`) {
		t.Fatalf("w2's join did not go on: %v", res.Applied)
	}
	if msg := res.Failed[pre].Error(); !strings.Contains(msg, `hook "gate"`) || !strings.Contains(msg, "w1") {
		t.Errorf("error does not name the hook and node: %s", msg)
	}
	st, _ := readStateFile(h.state)
	if _, ok := st.Lookup("host.w1"); ok {
		t.Error("host.w1 was created although its pre-join hook aborted")
	}
	var aborted *state.HookRun
	for i := range st.HookRuns {
		if st.HookRuns[i].Address == pre {
			aborted = &st.HookRuns[i]
		}
	}
	if aborted == nil || aborted.Decision != "abort" || aborted.Attempts[0].ExitCode != 3 || aborted.Error == "" {
		t.Fatalf("abort not recorded: %+v", aborted)
	}
}

func TestHookContinueGoesOnAndRecords(t *testing.T) {
	h := newHookRig(t)
	o := h.opts()
	c := cluster(shellHook("soft", hook.NodeScope, hookrun.Continue, "pre-join"))
	h.apply(o, h.plan(o, c, node("m1", nil)...))
	h.fake.fail["soft/w1"] = true
	p := h.plan(o, c, append(node("m1", nil), node("w1", nil)...)...)
	res := h.apply(o, p)
	if !res.OK() {
		t.Fatalf("continue stopped the join: %s", FailureSummary(p, res))
	}
	if len(res.HookWarnings) != 1 || !strings.Contains(res.HookWarnings[0], "soft") {
		t.Fatalf("warnings %v", res.HookWarnings)
	}
	st, _ := readStateFile(h.state)
	if len(st.HookRuns) != 1 || st.HookRuns[0].Decision != "continue" {
		t.Fatalf("runs %+v", st.HookRuns)
	}
	// The audit log holds the same run, as one JSON line.
	f, err := os.Open(AuditLogPath(h.state))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []state.HookRun
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r state.HookRun
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		lines = append(lines, r)
	}
	if len(lines) != 1 || lines[0].ID != st.HookRuns[0].ID || lines[0].Decision != "continue" || filepath.Base(AuditLogPath(h.state)) != "eggo.state.hooks.log" {
		t.Fatalf("audit log %+v", lines)
	}
}

func TestHookRecordsBoundedAcrossApplies(t *testing.T) {
	h := newHookRig(t)
	o := h.opts()
	c := cluster(shellHook("up", hook.NodeScope, "", "pre-upgrade"))
	c.Nodes = c.Nodes[1:2]
	h.apply(o, h.plan(o, c, node("w1", resources.Attrs{"v": 0.0})...))
	st, _ := readStateFile(h.state)
	for i := 0; i < state.MaxHookRuns; i++ {
		st.AddHookRun(state.HookRun{Hook: "old", Decision: "ok"})
	}
	if err := state.NewStore(h.state).Write(st); err != nil {
		t.Fatal(err)
	}
	p := h.plan(o, c, node("w1", resources.Attrs{"v": 1.0, "upgrade": true})...)
	if res := h.apply(o, p); !res.OK() {
		t.Fatal(FailureSummary(p, res))
	}
	st, _ = readStateFile(h.state)
	if n := len(st.HookRuns); n != state.MaxHookRuns || st.HookRuns[n-1].Hook != "up" || st.HookRuns[n-1].Operator != "upgrade" {
		t.Fatalf("%d runs, last %+v", n, st.HookRuns[n-1])
	}
}

func TestPreUpgradeHookWaitsForThePreviousBatch(t *testing.T) {
	h := newHookRig(t)
	o := h.opts()
	c := cluster(shellHook("drain", hook.NodeScope, "", "pre-upgrade"))
	c.Nodes = c.Nodes[1:]
	h.apply(o, h.plan(o, c, rollingWorkers(0, false)...))
	p := h.plan(o, c, rollingWorkers(1, true)...)
	pre2 := p.Step(`hook.drain["pre-upgrade/w2"]`)
	if pre2 == nil || !contains(pre2.WaitsFor, "test.w1") {
		t.Fatalf("w2's pre-upgrade hook must wait for w1's batch: %+v", pre2)
	}
	if res := h.apply(o, p); !res.OK() {
		t.Fatal(FailureSummary(p, res))
	}
	if h.seq.index(t, "update test.w1") > h.seq.index(t, "hook prehook drain upgrade w2") {
		t.Fatalf("w2 drained while w1 was upgrading: %v", h.seq.ops)
	}
}

func TestPostUpgradeHookGatesTheRoll(t *testing.T) {
	h := newHookRig(t)
	o := h.opts()
	c := cluster(shellHook("health", hook.NodeScope, "", "post-upgrade"),
		shellHook("drain", hook.NodeScope, "", "pre-upgrade"))
	c.Nodes = c.Nodes[1:]
	h.apply(o, h.plan(o, c, rollingWorkers(0, false)...))
	h.fake.fail["health/w1"] = true
	p := h.plan(o, c, rollingWorkers(1, true)...)
	post1 := `hook.health["post-upgrade/w1"]`
	if s := p.Step("test.w2"); !contains(s.WaitsFor, post1) {
		t.Fatalf("w2's upgrade does not wait for w1's post-upgrade hook: %v", s.WaitsFor)
	}
	if s := p.Step(`hook.drain["pre-upgrade/w2"]`); !contains(s.WaitsFor, post1) {
		t.Fatalf("w2's pre-upgrade hook does not wait for w1's post-upgrade hook: %v", s.WaitsFor)
	}
	res := h.apply(o, p)
	if _, failed := res.Failed[post1]; !failed || len(res.Failed) != 1 {
		t.Fatalf("failed: %v", res.Failed)
	}
	for _, a := range []string{"test.w2", `hook.drain["pre-upgrade/w2"]`, `hook.health["post-upgrade/w2"]`} {
		if _, skipped := res.Skipped[a]; !skipped {
			t.Errorf("%s was not skipped after w1's health hook aborted: skipped %v", a, res.Skipped)
		}
	}
	if !slices.Contains(res.Applied, "test.w1") {
		t.Fatalf("w1's upgrade itself should be applied: %v", res.Applied)
	}
}

// A pre hook waits only for what the operation's first steps wait for: a
// worker's pre-deploy hook does not wait for the master, although a later
// step of the worker's deploy does.
func TestPreHookWaitsOnlyForTheFirstSteps(t *testing.T) {
	h := newHookRig(t)
	o := h.opts()
	c := cluster(shellHook("prep", hook.NodeScope, "", "pre-deploy"))
	w1 := node("w1", nil)
	w1[1].DependsOn = append(w1[1].DependsOn, "test.m1")
	p := h.plan(o, c, append(node("m1", nil), w1...)...)
	pre := p.Step(`hook.prep["pre-deploy/w1"]`)
	if pre == nil || contains(pre.WaitsFor, "test.m1") {
		t.Fatalf("w1's pre-deploy hook waits for the master: %+v", pre)
	}
	for _, a := range []string{"host.w1", "test.w1"} {
		if !contains(p.Step(a).WaitsFor, pre.Addr) {
			t.Errorf("%s does not wait for the pre hook", a)
		}
	}
	if !contains(p.Step("test.w1").WaitsFor, "test.m1") {
		t.Error("test.w1 lost its own edge to the master")
	}
	if res := h.apply(o, p); !res.OK() {
		t.Fatal(FailureSummary(p, res))
	}
	if h.seq.index(t, "hook prehook prep deploy w1") > h.seq.index(t, "create host.w1") {
		t.Fatalf("host.w1 created before its pre-deploy hook: %v", h.seq.ops)
	}
}

func checkHook(name string, policy hookrun.Policy, events ...string) hook.Hook {
	h := shellHook(name, hook.NodeScope, policy, events...)
	h.Type, h.Shell = hook.TypeWeb, nil
	h.Check = &hookcheck.Spec{Name: name, Web: &hookcheck.Web{URL: "http://127.0.0.1:1/{{ args.ip }}", JSONPath: "{$.x}"}, Args: map[string]string{"ip": "{{ node.ip }}"}}
	h.Attempts, h.Backoff, h.Fallback = 3, time.Millisecond, hookrun.Continue
	return h
}

// A check hook's phase feeds the policy: retry re-runs the measurement
// run until it is Successful, within its attempts; then the fallback.
func TestCheckHookPhaseFeedsThePolicy(t *testing.T) {
	h := newHookRig(t)
	o := h.opts()
	c := cluster(checkHook("ready", hookrun.Retry, "post-join"))
	h.apply(o, h.plan(o, c, node("m1", nil)...))

	h.fake.phases = []hookcheck.Phase{hookcheck.PhaseFailed, hookcheck.PhaseError}
	p := h.plan(o, c, append(node("m1", nil), node("w1", nil)...)...)
	if res := h.apply(o, p); !res.OK() || len(res.HookWarnings) != 0 {
		t.Fatalf("a check successful at its third attempt: %s %v", FailureSummary(p, res), res.HookWarnings)
	}
	st, _ := readStateFile(h.state)
	r := st.HookRuns[len(st.HookRuns)-1]
	if r.Phase != "Successful" || len(r.Attempts) != 3 || r.Attempts[0].Error == "" || r.Attempts[2].Error != "" || r.Decision != "ok" || h.fake.checks != 3 {
		t.Fatalf("record %+v after %d checks", r, h.fake.checks)
	}

	h.fake.phases = []hookcheck.Phase{hookcheck.PhaseInconclusive, hookcheck.PhaseInconclusive, hookcheck.PhaseInconclusive}
	h.fake.checks = 0
	p = h.plan(o, c, append(append(node("m1", nil), node("w1", nil)...), node("w2", nil)...)...)
	res := h.apply(o, p)
	if !res.OK() || len(res.HookWarnings) != 1 || !strings.Contains(res.HookWarnings[0], "Inconclusive") || !strings.Contains(res.HookWarnings[0], "http://127.0.0.1:1/10.0.0.3") {
		t.Fatalf("spent retries fall back to continue with the phase and the rendered URL: %s %q", FailureSummary(p, res), res.HookWarnings)
	}
	st, _ = readStateFile(h.state)
	r = st.HookRuns[len(st.HookRuns)-1]
	if r.Phase != "Inconclusive" || len(r.Attempts) != 3 || r.Decision != "continue" || len(r.Measurements) != 1 || r.Measurements[0].Value != "7" || h.fake.checks != 3 {
		t.Fatalf("record %+v after %d checks", r, h.fake.checks)
	}
}

// rollingWorkers are w1 and w2 rolled one at a time at version v (up: the
// change is an upgrade).
func rollingWorkers(v float64, up bool) []resources.Desired {
	var ds []resources.Desired
	for _, n := range []string{"w1", "w2"} {
		nd := node(n, resources.Attrs{"v": v, "upgrade": up})
		nd[1].Roll = &resources.Roll{Group: "workers", Unit: n, Batch: 1}
		ds = append(ds, nd...)
	}
	return ds
}

// A deploy that failed is still a deploy when it is run again: its nodes
// get deploy hooks, not join hooks, until it finishes without failures.
func TestResumedDeployIsStillADeploy(t *testing.T) {
	h := newHookRig(t)
	o := h.opts()
	c := cluster(shellHook("prep", hook.NodeScope, "", "pre-deploy", "pre-join"))
	all := append(node("m1", nil), node("w1", nil)...)
	h.fake.fail["prep/w1"] = true
	p := h.plan(o, c, all...)
	if res := h.apply(o, p); res.OK() {
		t.Fatal("w1's pre-deploy hook should have failed")
	}
	st, _ := readStateFile(h.state)
	if !st.DeployPending || len(st.Resources) == 0 {
		t.Fatalf("after a failed deploy: pending %v, %d resources", st.DeployPending, len(st.Resources))
	}
	delete(h.fake.fail, "prep/w1")
	p = h.plan(o, c, all...)
	if got := hookSteps(p); !slices.Equal(got, []string{`hook.prep["pre-deploy/w1"]`}) {
		t.Fatalf("the resumed deploy places %v", got)
	}
	if res := h.apply(o, p); !res.OK() {
		t.Fatal(FailureSummary(p, res))
	}
	if st, _ := readStateFile(h.state); st.DeployPending {
		t.Fatal("a finished deploy is still pending")
	}
	p = h.plan(o, c, append(all, node("w2", nil)...)...)
	if got := hookSteps(p); !slices.Equal(got, []string{`hook.prep["pre-join/w2"]`}) {
		t.Fatalf("a node added after the deploy places %v", got)
	}
}

// A run_on = "operator" cluster hook runs here: the step names no host,
// the runner is given the operator, its record and warning say so, and
// its EGGO_NODE_* variables still describe the first master.
func TestOperatorHookRunsHere(t *testing.T) {
	h := newHookRig(t)
	o := h.opts()
	tell := shellHook("tell", hook.ClusterScope, hookrun.Continue, "post-deploy")
	tell.OnOperator = true
	c := cluster(tell)
	h.fake.fail["tell/operator"] = true
	p := h.plan(o, c, append(node("m1", nil), node("w1", nil)...)...)
	s := p.Step(`hook.tell["post-deploy"]`)
	if s == nil || s.Node != "" || !s.Hook.Local {
		t.Fatalf("operator hook step %+v", s)
	}
	res := h.apply(o, p)
	if !res.OK() || len(res.HookWarnings) != 1 || !strings.Contains(res.HookWarnings[0], "failed on operator") {
		t.Fatalf("%s; warnings %q", FailureSummary(p, res), res.HookWarnings)
	}
	if env := h.fake.specs[0].Env; env["EGGO_NODE_NAME"] != "m1" || env["EGGO_NODE_IP"] != "10.0.0.1" {
		t.Fatalf("env %v: want the first master's", env)
	}
	st, _ := readStateFile(h.state)
	if r := st.HookRuns[len(st.HookRuns)-1]; r.Node != "operator" || r.Decision != "continue" {
		t.Fatalf("record %+v", r)
	}
}

// A destroy of a cluster whose deploy never finished ends the pending
// deploy: the state says nothing of a deploy that no longer exists.
func TestDestroyEndsAPendingDeploy(t *testing.T) {
	h := newHookRig(t)
	o := h.opts()
	c := cluster(shellHook("prep", hook.NodeScope, "", "pre-deploy"))
	h.fake.fail["prep/w1"] = true
	all := append(node("m1", nil), node("w1", nil)...)
	if res := h.apply(o, h.plan(o, c, all...)); res.OK() {
		t.Fatal("w1's pre-deploy hook should have failed")
	}
	if st, _ := readStateFile(h.state); !st.DeployPending {
		t.Fatal("a failed deploy is not pending")
	}
	o.Destroy = true
	p := h.plan(o, c)
	if res := h.apply(o, p); !res.OK() {
		t.Fatal(FailureSummary(p, res))
	}
	if st, _ := readStateFile(h.state); st.DeployPending || len(st.Resources) != 0 {
		t.Fatalf("after destroy: pending %v, %d resources", st.DeployPending, len(st.Resources))
	}
}
