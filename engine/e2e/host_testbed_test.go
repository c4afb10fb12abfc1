package e2e_test

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/host"
)

// testbedConfig writes a two-node definition for the testbed with a
// bundle of a few small files and one big one.
func testbedConfig(t *testing.T, tb *nspawntest.Testbed, bigMB int) string {
	t.Helper()
	dir := t.TempDir()
	pk := filepath.Join(dir, "packages", "amd64")
	write := func(rel string, data []byte, mode os.FileMode) {
		p := filepath.Join(pk, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
	}
	write("opt/eggo-e2e/bin/tool", []byte("#!/bin/sh\necho tool\n"), 0o755)
	write("etc/eggo-e2e/app.conf", []byte("setting = 1\n"), 0o644)
	write("etc/hostname.eggo-e2e", []byte("x\n"), 0o600)
	big := make([]byte, bigMB<<20)
	rand.Read(big)
	write("opt/eggo-e2e/lib/big.bin", big, 0o644)
	h := tb.Hosts[0]
	var nodes strings.Builder
	for i, n := range tb.Hosts {
		roles := `"worker"`
		if i == 0 {
			roles = `"master", "etcd"`
		}
		fmt.Fprintf(&nodes, "node %q {\n  address = %q\n  roles = [%s]\n}\n", n.Name, n.Address, roles)
	}
	cfg := fmt.Sprintf(`cluster "e2e" {
  kubernetes_version = "1.31.4"
  packages           = "./packages"
}
connection {
  user             = %q
  private_key_file = %q
  known_hosts_file = %q
}
%s`, h.User, h.KeyFile, h.KnownHostsFile, nodes.String())
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// hostTree lists every path under the directories eggo writes to, with
// each file's checksum: the host "as it was".
func hostTree(t *testing.T, tb *nspawntest.Testbed, name string) string {
	t.Helper()
	return tb.TreeForTest(t, name)
}

// runOpts are what a test changes in a run: the workspace's request, the
// plan's flags, the observer of the plan and the apply, and the operation
// the state is locked for before the plan ("": none, a plan alone).
type runOpts struct {
	req  engine.Request
	plan engine.PlanOptions
	obs  engine.ApplyObserver
	lock string
}

// planIn opens dir's workspace and plans in it; the caller closes the
// workspace. The error is the configuration's diagnostics or the plan's.
func planIn(dir string, mutate func(*runOpts)) (*engine.Workspace, *runOpts, *engine.Plan, error) {
	r := &runOpts{req: engine.Request{Dir: dir, StatePath: filepath.Join(dir, "eggo.state")}}
	if _, err := os.Stat(filepath.Join(dir, testIdentityFile)); err == nil {
		r.req.Identities = []string{filepath.Join(dir, testIdentityFile)}
	}
	if w, ok := testLogs.Load(dir); ok {
		r.req.Log = hclog.New(&hclog.LoggerOptions{Level: hclog.Debug, Output: w.(io.Writer)})
	}
	if mutate != nil {
		mutate(r)
	}
	// As the commands do: the configuration says where the state lives
	// and who its secrets are sealed to.
	ws, err := engine.Open(context.Background(), r.req)
	if err != nil {
		return nil, r, nil, err
	}
	if r.lock != "" {
		if err := ws.Lock(r.lock); err != nil {
			return ws, r, nil, err
		}
	}
	var obs engine.Observer
	if r.obs != nil {
		obs = r.obs
	}
	p, err := ws.Plan(context.Background(), r.plan, obs)
	return ws, r, p, err
}

// testIdentityFile, when a test writes it into the configuration
// directory, is the identity its runs open the state's secrets with.
const testIdentityFile = "test.identity"

// testLogs holds, by configuration directory, where a test wants every
// run's debug log to go (a map, not one variable: the Kubernetes tests run
// in parallel).
var testLogs sync.Map

// logRunsTo sends the debug log of every run in dir to w until t ends.
func logRunsTo(t *testing.T, dir string, w io.Writer) {
	testLogs.Store(dir, w)
	t.Cleanup(func() { testLogs.Delete(dir) })
}

// planOnce plans dir in a workspace of its own, closed before it returns.
func planOnce(dir string, mutate func(*runOpts)) (*engine.Plan, error) {
	ws, _, p, err := planIn(dir, mutate)
	if ws != nil {
		ws.Close()
	}
	return p, err
}

// runApply plans and applies dir in one workspace under the state's lock,
// as `eggo apply` does: the plan and the apply share its connections,
// which the Result counts.
func runApply(t *testing.T, dir string, mutate func(*runOpts)) (*engine.Plan, *engine.Result) {
	t.Helper()
	ws, r, p, err := planIn(dir, func(r *runOpts) {
		r.lock = "apply"
		if mutate != nil {
			mutate(r)
		}
	})
	if ws != nil {
		defer ws.Close()
	}
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	timed := &timingObserver{ApplyObserver: r.obs}
	if r.obs == nil {
		timed.ApplyObserver = engine.NopObserver{}
	}
	res, err := ws.Apply(context.Background(), p, engine.ApplyOptions{Parallelism: r.plan.Parallelism, Force: r.plan.Force}, timed, nil)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if res.Took > slowApply {
		t.Logf("an apply of %s; its slowest changes: %s", res.Took.Round(time.Second), timed.slowest(4))
		t.Logf("its timeline: %s", timed.timeline())
	}
	return p, res
}

// slowApply is how long an apply runs before the test's log names its
// slowest changes: where a cluster test's time goes.
const slowApply = time.Minute

// timingObserver keeps how long each change took, for the log.
type timingObserver struct {
	engine.ApplyObserver
	mu    sync.Mutex
	took  map[string]time.Duration
	ended map[string]time.Time
}

func (o *timingObserver) PostApply(c *resources.Change, err error, took time.Duration) {
	o.mu.Lock()
	if o.took == nil {
		o.took, o.ended = map[string]time.Duration{}, map[string]time.Time{}
	}
	o.took[c.Addr], o.ended[c.Addr] = took, time.Now()
	o.mu.Unlock()
	o.ApplyObserver.PostApply(c, err, took)
}

// timeline is every change of a second or more with its wall-clock start
// and end, in start order: what ran when a poll saw the API fail (its
// error says its time).
func (o *timingObserver) timeline() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	start := func(a string) time.Time { return o.ended[a].Add(-o.took[a]) }
	var addrs []string
	for a, d := range o.took {
		if d >= time.Second {
			addrs = append(addrs, a)
		}
	}
	slices.SortFunc(addrs, func(a, b string) int { return start(a).Compare(start(b)) })
	var out []string
	for _, a := range addrs {
		out = append(out, fmt.Sprintf("%s %s–%s", a, start(a).Format(time.TimeOnly), o.ended[a].Format(time.TimeOnly)))
	}
	return strings.Join(out, ", ")
}

// slowest names the n longest changes with their times, the longest first.
func (o *timingObserver) slowest(n int) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	addrs := slices.SortedFunc(maps.Keys(o.took), func(a, b string) int { return cmp.Compare(o.took[b], o.took[a]) })
	var out []string
	for _, a := range addrs[:min(n, len(addrs))] {
		out = append(out, fmt.Sprintf("%s %s", a, o.took[a].Round(100*time.Millisecond)))
	}
	return strings.Join(out, ", ")
}

// hostOnly limits a run to the host kind: these tests are about hosts and
// bundles, not about the Kubernetes components on them.
func hostOnly(r *runOpts) { r.req.Kinds = []resources.Kind{host.New()} }

func TestHostOnTestbed(t *testing.T) {
	if testing.Short() {
		t.Skip("testbed test; -short")
	}
	tb := nspawntest.UpForTest(t, 2)
	dir := testbedConfig(t, tb, 4)
	before := map[string]string{}
	for _, h := range tb.Hosts {
		before[h.Name] = hostTree(t, tb, h.Name)
	}

	// Apply: both hosts get the bundle, one connection each.
	p, res := runApply(t, dir, hostOnly)
	if c := p.Counts(); c.Add != 2 || !res.OK() {
		t.Fatalf("first apply: %+v %+v", c, res.Failed)
	}
	if res.Connections != 2 {
		t.Errorf("first apply opened %d connections, want 1 per host (2)", res.Connections)
	}
	for _, h := range tb.Hosts {
		out, err := tb.Exec(context.Background(), h.Name, "cat /etc/eggo-e2e/app.conf && stat -c %a /etc/hostname.eggo-e2e")
		if err != nil || out != "setting = 1\n600\n" {
			t.Fatalf("%s: bundle not installed: %q %v", h.Name, out, err)
		}
	}

	// No-op: no changes, no remote writes, one connection per host.
	stateBefore, _ := os.ReadFile(filepath.Join(dir, "eggo.state"))
	p, res = runApply(t, dir, hostOnly)
	if p.HasChanges() || res.Writes != 0 || res.Bytes != 0 || res.Connections != 2 {
		t.Fatalf("no-op apply: changes=%v writes=%d bytes=%d connections=%d", p.HasChanges(), res.Writes, res.Bytes, res.Connections)
	}
	if stateAfter, _ := os.ReadFile(filepath.Join(dir, "eggo.state")); string(stateAfter) != string(stateBefore) {
		t.Fatal("no-op apply changed the state file")
	}

	// Drift: a file edited on one host is seen and repaired, only there.
	m1 := tb.Hosts[1].Name
	if _, err := tb.Exec(context.Background(), m1, "echo tampered > /etc/eggo-e2e/app.conf"); err != nil {
		t.Fatal(err)
	}
	p, res = runApply(t, dir, hostOnly)
	s := p.Step("host." + m1)
	if s == nil || s.Action != resources.Update || !hasReason(s.Reasons, resources.ReasonDrift) {
		t.Fatalf("drift plan for %s: %+v", m1, s)
	}
	if p.Step("host."+tb.Hosts[0].Name).Action != resources.NoOp {
		t.Fatal("drift on one host changed the other's plan")
	}
	if !res.OK() || res.Bytes >= 1<<20 {
		t.Fatalf("drift repair: ok=%v bytes=%d (only the small file should be copied)", res.OK(), res.Bytes)
	}

	// A host cut off mid-apply: the other finishes, state keeps what was
	// done, and the next apply converges.
	if _, err := tb.Exec(context.Background(), m1, "rm -f /opt/eggo-e2e/lib/big.bin"); err != nil {
		t.Fatal(err)
	}
	bigDir := testbedConfig(t, tb, 48) // a new big file on both hosts
	copyState(t, filepath.Join(dir, "eggo.state"), filepath.Join(bigDir, "eggo.state"))
	cut := &cutHook{
		match: func(addr, msg string) bool { return addr == "host."+m1 && strings.HasPrefix(msg, "copying big.bin") },
		cut: func() {
			if err := tb.Cut(m1); err != nil {
				t.Error(err)
			}
		},
	}
	_, res = runApply(t, bigDir, func(r *runOpts) { hostOnly(r); r.obs = cut })
	tb.Restore(m1)
	if res.OK() || res.Failed["host."+m1] == nil {
		t.Fatalf("cut host did not fail: %+v", res)
	}
	if res.Failed["host."+tb.Hosts[0].Name] != nil {
		t.Fatalf("the other host failed too: %v", res.Failed)
	}
	if msg := fmt.Sprintf("%+v", res.Failed["host."+m1]); !strings.Contains(msg, m1) {
		t.Errorf("error does not name the host: %s", msg)
	}
	p, res = runApply(t, bigDir, hostOnly)
	if !res.OK() {
		t.Fatalf("apply after restore: %v", res.Failed)
	}
	if p.Step("host."+m1).Action == resources.NoOp {
		t.Fatal("apply after restore planned nothing for the cut host")
	}
	if p2, _ := runApply(t, bigDir, hostOnly); p2.HasChanges() {
		t.Fatal("not converged after restore")
	}

	// Destroy leaves each host as it was before.
	_, res = runApply(t, bigDir, func(r *runOpts) { hostOnly(r); r.req.Destroy = true })
	if !res.OK() || res.Counts.Destroy != 2 {
		t.Fatalf("destroy: %+v", res)
	}
	for _, h := range tb.Hosts {
		if after := hostTree(t, tb, h.Name); after != before[h.Name] {
			t.Errorf("%s not as before destroy:\n%s", h.Name, nspawntest.TreeDiff(before[h.Name], after))
		}
	}
}

func copyState(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The timeline lists the changes of a second or more by their start, with
// their wall-clock start and end.
func TestTimingObserverTimeline(t *testing.T) {
	o := &timingObserver{ApplyObserver: engine.NopObserver{}}
	o.PostApply(&resources.Change{Addr: "late"}, nil, 2*time.Second)
	o.PostApply(&resources.Change{Addr: "quick"}, nil, 10*time.Millisecond)
	o.PostApply(&resources.Change{Addr: "early"}, nil, 5*time.Second)
	got := o.timeline()
	if !strings.HasPrefix(got, "early ") || !strings.Contains(got, ", late ") || strings.Contains(got, "quick") || strings.Count(got, "–") != 2 {
		t.Errorf("timeline: %q", got)
	}
}
