package engine

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources"
)

// rig runs plans and applies of test resources against a state file.
type rig struct {
	t     *testing.T
	kind  *testKind
	state string
}

func newRig(t *testing.T) *rig {
	dir := t.TempDir()
	world := filepath.Join(dir, "world")
	if err := os.Mkdir(world, 0o755); err != nil {
		t.Fatal(err)
	}
	return &rig{t: t, kind: newTestKind(world), state: filepath.Join(dir, "eggo.state")}
}

func (r *rig) opts() options {
	return options{StatePath: r.state, Kinds: []resources.Kind{r.kind}, Parallelism: 4}.withDefaults()
}

func (r *rig) plan(o options, ds ...resources.Desired) *Plan {
	r.t.Helper()
	prior, err := o.readState()
	if err != nil {
		r.t.Fatal(err)
	}
	p, err := planDesired(context.Background(), o, ds, prior)
	if err != nil {
		r.t.Fatalf("plan: %v", err)
	}
	return p
}

func (r *rig) apply(o options, p *Plan) *Result {
	r.t.Helper()
	prior, err := o.readState()
	if err != nil {
		r.t.Fatal(err)
	}
	res, err := apply(context.Background(), o, p, prior, nil)
	if err != nil {
		r.t.Fatalf("apply: %v", err)
	}
	return res
}

func actions(p *Plan) map[string]resources.Action {
	m := map[string]resources.Action{}
	for _, s := range p.Steps {
		m[s.Addr] = s.Action
	}
	return m
}

func stateAddrs(t *testing.T, path string) []string {
	t.Helper()
	st, err := readStateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	if st != nil {
		for _, r := range st.Resources {
			out = append(out, r.Address+statusSuffix(r.Status))
		}
	}
	return out
}

func statusSuffix(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

func TestApplyCreatesThenNoChanges(t *testing.T) {
	r := newRig(t)
	ds := []resources.Desired{
		desired("test.a", resources.Attrs{"value": "1"}),
		desired("test.b", resources.Attrs{"value": "2"}, "test.a"),
	}
	p := r.plan(r.opts(), ds...)
	if got := p.Counts(); got != (Counts{Add: 2}) {
		t.Fatalf("counts = %+v", got)
	}
	if s := p.Step("test.b"); !reflect.DeepEqual(s.WaitsFor, []string{"test.a"}) || s.Reasons[0].Code != resources.ReasonNew {
		t.Fatalf("step b = %+v", s)
	}
	res := r.apply(r.opts(), p)
	if !res.OK() || res.Counts.Add != 2 {
		t.Fatalf("result = %+v", res)
	}
	if got := r.kind.opsOf("create"); !reflect.DeepEqual(got, []string{"test.a", "test.b"}) {
		t.Fatalf("create order = %v", got)
	}
	before, _ := os.ReadFile(r.state)
	info, _ := os.Stat(r.state)
	p2 := r.plan(r.opts(), ds...)
	if p2.HasChanges() {
		t.Fatalf("second plan has changes: %v", actions(p2))
	}
	res2 := r.apply(r.opts(), p2)
	if len(res2.Applied) != 0 {
		t.Fatalf("second apply changed %v", res2.Applied)
	}
	after, _ := os.ReadFile(r.state)
	info2, _ := os.Stat(r.state)
	if !bytes.Equal(before, after) || !info.ModTime().Equal(info2.ModTime()) {
		t.Fatal("a no-op apply rewrote the state file")
	}
	if !strings.HasSuffix(string(after), "}\n") {
		t.Fatal("state has no trailing newline")
	}
}

func TestFailureSkipsOnlyDependents(t *testing.T) {
	r := newRig(t)
	ds := []resources.Desired{
		desired("test.a", resources.Attrs{"fail": true}),
		desired("test.b", nil, "test.a"),
		desired("test.c", nil, "test.b"),
		desired("test.d", resources.Attrs{"sleep_ms": 20.0}),
		desired("test.e", nil, "test.d"),
	}
	res := r.apply(r.opts(), r.plan(r.opts(), ds...))
	if len(res.Failed) != 1 || res.Failed["test.a"] == nil {
		t.Fatalf("failed = %v", res.Failed)
	}
	want := map[string]string{"test.b": "test.a", "test.c": "test.a"}
	if !reflect.DeepEqual(res.Skipped, want) {
		t.Fatalf("skipped = %v, want %v (root cause only)", res.Skipped, want)
	}
	if got := stateAddrs(t, r.state); !reflect.DeepEqual(got, []string{"test.d", "test.e"}) {
		t.Fatalf("state = %v", got)
	}
	// Re-running resumes: only the failed branch is planned again.
	ds[0].Attrs = resources.Attrs{}
	p := r.plan(r.opts(), ds...)
	if got := actions(p); got["test.d"] != resources.NoOp || got["test.a"] != resources.Create || got["test.c"] != resources.Create {
		t.Fatalf("resume plan = %v", got)
	}
	if res := r.apply(r.opts(), p); !res.OK() {
		t.Fatalf("resume failed: %v", res.Failed)
	}
}

func TestPartialFailureIsRecordedPending(t *testing.T) {
	r := newRig(t)
	res := r.apply(r.opts(), r.plan(r.opts(), desired("test.a", resources.Attrs{"fail_after": true})))
	if res.OK() {
		t.Fatal("expected a failure")
	}
	if got := stateAddrs(t, r.state); !reflect.DeepEqual(got, []string{"test.a(pending)"}) {
		t.Fatalf("state = %v: work done before the failure must be kept, marked pending", got)
	}
	p := r.plan(r.opts(), desired("test.a", resources.Attrs{}))
	if s := p.Step("test.a"); s.Action != resources.Update || s.Reasons[0].Code != resources.ReasonPending {
		t.Fatalf("plan after pending = %+v", s.Change)
	}
}

func TestPanicIsAnError(t *testing.T) {
	r := newRig(t)
	res := r.apply(r.opts(), r.plan(r.opts(), desired("test.a", resources.Attrs{"panic": true}), desired("test.b", nil)))
	if err := res.Failed["test.a"]; err == nil || !strings.Contains(err.Error(), "injected panic") {
		t.Fatalf("failed = %v", res.Failed)
	}
	// What a panicking kind did is unknown: it stays pending, to be re-read.
	if got := stateAddrs(t, r.state); !reflect.DeepEqual(got, []string{"test.a(pending)", "test.b"}) {
		t.Fatalf("state = %v", got)
	}
}

func TestStopWaitsForRunningThenCancelAbandons(t *testing.T) {
	r := newRig(t)
	ds := []resources.Desired{
		desired("test.slow", resources.Attrs{"sleep_ms": 150.0}),
		desired("test.after", nil, "test.slow"),
	}
	p := r.plan(r.opts(), ds...)
	stop := make(chan struct{})
	go func() { time.Sleep(30 * time.Millisecond); close(stop) }()
	res, err := apply(context.Background(), r.opts(), p, nil, stop)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Applied, []string{"test.slow"}) || !reflect.DeepEqual(res.NotStarted, []string{"test.after"}) {
		t.Fatalf("applied %v, not started %v", res.Applied, res.NotStarted)
	}

	r2 := newRig(t)
	p2 := r2.plan(r2.opts(), desired("test.hang", resources.Attrs{"hang": true}))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(30 * time.Millisecond); cancel() }()
	res2, err := apply(ctx, r2.opts(), p2, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e := res2.Failed["test.hang"]; e == nil || !strings.Contains(e.Error(), "interrupted") {
		t.Fatalf("hang result = %v", res2.Failed)
	}
}

func TestDestroyRunsInReverse(t *testing.T) {
	r := newRig(t)
	ds := []resources.Desired{
		desired("test.a", nil),
		desired("test.b", nil, "test.a"),
		desired("test.c", nil, "test.b"),
	}
	r.apply(r.opts(), r.plan(r.opts(), ds...))
	o := r.opts()
	o.Destroy = true
	p := r.plan(o, ds...)
	if got := p.Counts(); got != (Counts{Destroy: 3}) {
		t.Fatalf("counts = %+v", got)
	}
	res := r.apply(o, p)
	if !res.OK() {
		t.Fatal(res.Failed)
	}
	if got := r.kind.opsOf("delete"); !reflect.DeepEqual(got, []string{"test.c", "test.b", "test.a"}) {
		t.Fatalf("delete order = %v", got)
	}
	if got := stateAddrs(t, r.state); len(got) != 0 {
		t.Fatalf("state after destroy = %v", got)
	}
	if w := r.kind.world(); len(w) != 0 {
		t.Fatalf("world after destroy = %v", w)
	}
}

func TestRemovedFromConfigIsDeletedBeforeItsDependencies(t *testing.T) {
	r := newRig(t)
	r.apply(r.opts(), r.plan(r.opts(), desired("test.a", nil), desired("test.b", nil, "test.a")))
	p := r.plan(r.opts())
	if got := actions(p); got["test.a"] != resources.Delete || got["test.b"] != resources.Delete {
		t.Fatalf("plan = %v", got)
	}
	if s := p.Step("test.a"); !reflect.DeepEqual(s.WaitsFor, []string{"test.b"}) || s.Reasons[0].Code != resources.ReasonRemoved {
		t.Fatalf("a waits for %v, reasons %v", s.WaitsFor, s.Reasons)
	}
}

func TestDriftAndReplaceAndTarget(t *testing.T) {
	r := newRig(t)
	ds := []resources.Desired{
		desired("test.a", resources.Attrs{"value": "1"}),
		desired("test.b", resources.Attrs{"value": "2"}, "test.a"),
		desired("test.c", resources.Attrs{"value": "3"}),
	}
	r.apply(r.opts(), r.plan(r.opts(), ds...))
	// Someone edits b on its host.
	if err := os.WriteFile(r.kind.file("test.b"), []byte(`{"value":"edited"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := r.plan(r.opts(), ds...)
	s := p.Step("test.b")
	if s.Action != resources.Update || !hasReason(s.Reasons, resources.ReasonDrift) {
		t.Fatalf("drift plan = %+v", s.Change)
	}
	o := r.opts()
	o.NoRefresh = true
	if r.plan(o, ds...).HasChanges() {
		t.Fatal("-refresh=false must not see drift")
	}
	o = r.opts()
	o.Replace = []string{"test.c"}
	if s := r.plan(o, ds...).Step("test.c"); s.Action != resources.Replace || !hasReason(s.Reasons, resources.ReasonReplaceRequested) {
		t.Fatalf("replace plan = %+v", s.Change)
	}
	o = r.opts()
	o.Targets = []string{"test.b"}
	ds[2].Attrs = resources.Attrs{"value": "changed"}
	tp := r.plan(o, ds...)
	if got := actions(tp); len(got) != 2 || got["test.c"] != "" {
		t.Fatalf("target plan = %v (want only test.b and its dependency test.a)", got)
	}
	if len(tp.Warnings) == 0 {
		t.Fatal("target plan must warn")
	}
}

func TestGoneResourceIsRecreated(t *testing.T) {
	r := newRig(t)
	r.apply(r.opts(), r.plan(r.opts(), desired("test.a", nil)))
	os.Remove(r.kind.file("test.a"))
	s := r.plan(r.opts(), desired("test.a", nil)).Step("test.a")
	if s.Action != resources.Create || s.Reasons[0].Code != resources.ReasonGone {
		t.Fatalf("plan = %+v", s.Change)
	}
}

func TestSavedPlanRefusedWhenStateMoved(t *testing.T) {
	r := newRig(t)
	p := r.plan(r.opts(), desired("test.a", nil))
	path := filepath.Join(t.TempDir(), "plan")
	if err := SavePlan(path, p, PlanSeal{}); err != nil {
		t.Fatal(err)
	}
	r.apply(r.opts(), r.plan(r.opts(), desired("test.x", nil)))
	loaded, err := LoadPlan(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	prior, _ := readStateFile(r.state)
	if _, err := apply(context.Background(), r.opts(), loaded, prior, nil); err == nil || !strings.Contains(err.Error(), "state changed since this plan") {
		t.Fatalf("err = %v", err)
	}
}

func TestCycleIsAnError(t *testing.T) {
	r := newRig(t)
	o := r.opts()
	_, err := planDesired(context.Background(), o, []resources.Desired{desired("test.a", nil, "test.b"), desired("test.b", nil, "test.a")}, nil)
	if err == nil || !strings.Contains(err.Error(), "test.a") {
		t.Fatalf("err = %v", err)
	}
}

func TestSensitiveMarkedInState(t *testing.T) {
	r := newRig(t)
	p := r.plan(r.opts(), desired("test.a", resources.Attrs{"secret": "hunter2"}))
	if !reflect.DeepEqual(p.Step("test.a").Sensitive, []string{"secret"}) {
		t.Fatalf("sensitive = %v", p.Step("test.a").Sensitive)
	}
	r.apply(r.opts(), p)
	st, _ := readStateFile(r.state)
	if !reflect.DeepEqual(st.Resources[0].Sensitive, []string{"secret"}) {
		t.Fatalf("state sensitive = %v", st.Resources[0].Sensitive)
	}
}

func hasReason(rs []resources.Reason, code string) bool {
	for _, r := range rs {
		if r.Code == code {
			return true
		}
	}
	return false
}
