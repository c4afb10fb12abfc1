package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// hookOut is where the testbed hooks write on their hosts. /var/tmp is
// outside everything eggo's host resource records, so it outlives a
// cleanup and the test can read what the post-cleanup hooks wrote.
const hookOut = "/var/tmp/eggo-hooks"

// envScript writes the EGGO_ variables and the arguments of every run to
// its own file, named after the hook, the timing, the operation and the node.
const envScript = `#!/bin/sh
set -e
mkdir -p ` + hookOut + `
f=` + hookOut + `/$EGGO_HOOK_NAME-$EGGO_HOOK_TYPE-$EGGO_OPERATOR-$EGGO_NODE_NAME.env
{ env | grep '^EGGO_' | LC_ALL=C sort; for a in "$@"; do printf 'ARG=%s\n' "$a"; done; } > "$f.tmp"
mv "$f.tmp" "$f"
echo "wrote $f"
`

// hooksTestbedDir writes a configuration of hosts (the first a master)
// with the testbed's connection, a small bundle, the hook scripts, and
// extra HCL (the hook blocks of one step of the test).
func hooksTestbedDir(t *testing.T, tb *nspawntest.Testbed) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"packages/amd64/opt/eggo-e2e/bin/tool": "#!/bin/sh\necho tool\n",
		"hooks/env.sh":                         envScript,
		// A directory hook: three scripts in lexical order (not creation
		// order), a sub-directory and a hidden file that must not run.
		"hooks/ordered/30-c.sh":     "echo 30-c >> " + hookOut + "/order\n",
		"hooks/ordered/10-a.sh":     "mkdir -p " + hookOut + "\necho 10-a >> " + hookOut + "/order\n",
		"hooks/ordered/20-b.sh":     "echo 20-b >> " + hookOut + "/order\n",
		"hooks/ordered/sub/00-x.sh": "echo sub >> " + hookOut + "/order\n",
		"hooks/ordered/.hidden.sh":  "echo hidden >> " + hookOut + "/order\n",
		"files/payload.txt":         "payload for the hook\n",
		"hooks/gate.sh":             "echo 'gate says no: maintenance window closed' >&2\nexit 3\n",
		"hooks/flaky.sh":            "mkdir -p " + hookOut + "\necho \"$EGGO_HOOK_ATTEMPT\" >> " + hookOut + "/attempts\necho \"attempt $EGGO_HOOK_ATTEMPT failed\" >&2\nexit 1\n",
		// Ignores SIGTERM (only notes it), so only SIGKILL ends it.
		"hooks/stubborn.sh": "mkdir -p " + hookOut + "\ndate +%s.%N > " + hookOut + "/stubborn.start\n" +
			"trap 'date +%s.%N > " + hookOut + "/stubborn.term; echo got TERM' TERM\n" +
			"while :; do sleep 0.05; done\n",
	}
	// Runs on this machine (run_on = "operator"), writing beside the config.
	files["hooks/local.sh"] = "env | grep '^EGGO_' | LC_ALL=C sort > " + filepath.Join(dir, "local-$EGGO_HOOK_TYPE-$EGGO_OPERATOR.env") + "\nhostname >> " + filepath.Join(dir, "local-$EGGO_HOOK_TYPE-$EGGO_OPERATOR.env") + "\n"
	for rel, content := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeHooksConfig writes main.hcl with the named hosts and extra HCL.
func writeHooksConfig(t *testing.T, tb *nspawntest.Testbed, dir string, hosts []string, extra string) {
	t.Helper()
	h := tb.Hosts[0]
	var b strings.Builder
	fmt.Fprintf(&b, `cluster "hooked" {
  kubernetes_version = "1.31.4"
  packages           = "./packages"
  labels             = { zone = "eu-1", "team" = "platform ops" }
  annotations        = { "owner" = "it's me" }
}
connection {
  user             = %q
  private_key_file = %q
  known_hosts_file = %q
}
`, h.User, h.KeyFile, h.KnownHostsFile)
	for _, name := range hosts {
		th, err := tb.Host(name)
		if err != nil {
			t.Fatal(err)
		}
		roles := `"worker"`
		if name == tb.Hosts[0].Name {
			roles = `"master", "etcd"`
		}
		fmt.Fprintf(&b, "node %q {\n  address = %q\n  roles   = [%s]\n}\n", name, th.Address, roles)
	}
	b.WriteString(`
hook "envnode" {
  on     = ["pre-deploy", "post-deploy", "pre-join", "post-join", "pre-delete", "post-delete", "pre-cleanup", "post-cleanup"]
  source = "hooks/env.sh"
}
hook "envcluster" {
  on     = ["pre-deploy", "post-deploy", "pre-join", "post-join", "pre-delete", "post-delete", "pre-cleanup", "post-cleanup"]
  scope  = "cluster"
  source = "hooks/env.sh"
}
`)
	b.WriteString(extra)
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hostFile reads a file on a testbed host ("" when it is missing).
func hostFile(t *testing.T, tb *nspawntest.Testbed, host, path string) string {
	t.Helper()
	out, err := tb.Exec(context.Background(), host, "cat "+path+" 2>/dev/null || true")
	if err != nil {
		t.Fatalf("%s: reading %s: %v", host, path, err)
	}
	return out
}

// wantEnv checks one env file a hook run wrote: every variable of the
// issue, for its hook, timing, operation and node.
func wantEnv(t *testing.T, tb *nspawntest.Testbed, c *resources.Cluster, hook, typ, op, ranOn string, args []string) {
	t.Helper()
	th, err := tb.Host(ranOn)
	if err != nil {
		t.Fatal(err)
	}
	roles := "worker"
	if ranOn == tb.Hosts[0].Name {
		roles = "master,etcd"
	}
	path := fmt.Sprintf("%s/%s-%s-%s-%s.env", hookOut, hook, typ, op, ranOn)
	got := hostFile(t, tb, ranOn, path)
	want := []string{
		"EGGO_CLUSTER_API_ENDPOINT=" + tb.Hosts[0].Address + ":6443", // the first master's: no load balancer
		"EGGO_CLUSTER_CONFIG_DIR=" + c.ConfigDir,
		"EGGO_CLUSTER_ID=hooked",
		"EGGO_HOOK_ATTEMPT=1",
		"EGGO_HOOK_NAME=" + hook,
		"EGGO_HOOK_SCRIPT=env.sh",
		"EGGO_HOOK_TYPE=" + typ,
		"EGGO_NODE_ARCH=amd64",
		"EGGO_NODE_IP=" + th.Address,
		"EGGO_NODE_NAME=" + ranOn,
		"EGGO_NODE_ROLE=" + roles,
		"EGGO_OPERATOR=" + op,
	}
	for _, a := range args {
		want = append(want, "ARG="+a)
	}
	if got != strings.Join(want, "\n")+"\n" {
		t.Errorf("%s on %s:\n got: %q\nwant: %q", path, ranOn, got, strings.Join(want, "\n")+"\n")
	}
}

// hookRunsOf are the recorded runs of one hook at one address.
func hookRunsOf(st *state.State, addr string) []state.HookRun {
	var out []state.HookRun
	for _, r := range st.HookRuns {
		if r.Address == addr {
			out = append(out, r)
		}
	}
	return out
}

// remoteStamp reads a `date +%s.%N` file written on a host.
func remoteStamp(t *testing.T, tb *nspawntest.Testbed, host, path string) time.Time {
	t.Helper()
	s := strings.TrimSpace(hostFile(t, tb, host, path))
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%s:%s: %q: %v", host, path, s, err)
	}
	return time.Unix(0, int64(f*1e9))
}

func TestHooksOnTestbed(t *testing.T) {
	if testing.Short() {
		t.Skip("testbed test; -short")
	}
	tb := nspawntest.UpForTestWith(t, nspawntest.Options{Names: []string{"h0", "h1", "h2", "h3"}})
	dir := hooksTestbedDir(t, tb)
	clusterArgs := []string{"team=platform ops", "zone=eu-1", "owner=it's me"}
	loadCluster := func() *resources.Cluster {
		t.Helper()
		ws, err := engine.Open(context.Background(), engine.Request{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		return ws.Loaded().Config.Cluster
	}
	readState := func() *state.State {
		t.Helper()
		st, err := readStateFile(filepath.Join(dir, "eggo.state"))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}

	// Deploy: h0 (master) and h1 (worker) with their cluster.
	writeHooksConfig(t, tb, dir, []string{"h0", "h1"}, `
hook "ordered" {
  on     = "pre-deploy"
  roles  = ["worker"]
  source = "hooks/ordered"
  files  = [{ src = "files/payload.txt", dst = "`+hookOut+`/deep/er/payload.txt" }]
}
hook "local" {
  on     = "post-deploy"
  scope  = "cluster"
  run_on = "operator"
  source = "hooks/local.sh"
}
`)
	c := loadCluster()
	p, res := runApply(t, dir, hostOnly)
	if !res.OK() {
		t.Fatalf("deploy: %s", engine.FailureSummary(p, res))
	}
	for _, n := range []string{"h0", "h1"} {
		for _, typ := range []string{"prehook", "posthook"} {
			wantEnv(t, tb, c, "envnode", typ, "deploy", n, nil)
		}
	}
	for _, typ := range []string{"prehook", "posthook"} {
		wantEnv(t, tb, c, "envcluster", typ, "deploy", "h0", clusterArgs)
	}
	// The operator hook ran here, for the first master.
	local, err := os.ReadFile(filepath.Join(dir, "local-posthook-deploy.env"))
	me, _ := os.Hostname()
	if err != nil || !strings.Contains(string(local), "EGGO_NODE_NAME=h0\n") || !strings.Contains(string(local), "EGGO_OPERATOR=deploy\n") ||
		!strings.HasSuffix(string(local), "\n"+me+"\n") {
		t.Errorf("run_on = operator: %q, %v", local, err)
	}
	if got := hostFile(t, tb, "h1", hookOut+"/order"); got != "10-a\n20-b\n30-c\n" {
		t.Errorf("directory hook ran %q: want its three top-level scripts in lexical order only", got)
	}
	if got := hostFile(t, tb, "h0", hookOut+"/order"); got != "" {
		t.Errorf("worker-only hook ran on the master: %q", got)
	}
	if got := hostFile(t, tb, "h1", hookOut+"/deep/er/payload.txt"); got != "payload for the hook\n" {
		t.Errorf("files: copied %q", got)
	}
	st := readState()
	if n := len(st.HookRuns); n != 4+2+1+1 {
		t.Errorf("deploy recorded %d hook runs, want 8 (2 node hooks × 2 nodes, 2 cluster, 1 ordered, 1 local)", n)
	}
	if r := hookRunsOf(st, `hook.local["post-deploy"]`); len(r) != 1 || r[0].Node != "operator" {
		t.Errorf("local run recorded %+v", r)
	}
	for _, r := range st.HookRuns {
		if r.Decision != "ok" || r.Operator != "deploy" || len(r.Attempts) != 1 || r.Attempts[0].ExitCode != 0 {
			t.Errorf("deploy run %+v", r)
		}
	}

	// Join h2 and h3: h2's gate aborts (exactly h2's join is skipped),
	// h3's flaky hook retries three times then continues, and h3's
	// stubborn post-join hook is stopped at its limit: SIGTERM, then
	// SIGKILL after the grace.
	writeHooksConfig(t, tb, dir, []string{"h0", "h1", "h2", "h3"}, `
hook "gate" {
  on     = "pre-join"
  nodes  = ["h2"]
  source = "hooks/gate.sh"
}
hook "flaky" {
  on       = "pre-join"
  nodes    = ["h3"]
  source   = "hooks/flaky.sh"
  policy   = "retry"
  attempts = 3
  backoff  = "200ms"
  fallback = "continue"
}
hook "stubborn" {
  on      = "post-join"
  nodes   = ["h3"]
  source  = "hooks/stubborn.sh"
  timeout = "2s"
  grace   = "2s"
  policy  = "continue"
}
`)
	p, res = runApply(t, dir, hostOnly)
	gate := `hook.gate["pre-join/h2"]`
	if _, failed := res.Failed[gate]; !failed || len(res.Failed) != 1 {
		t.Fatalf("join: want exactly %s failed, got %s", gate, engine.FailureSummary(p, res))
	}
	if msg := res.Failed[gate].Error(); !strings.Contains(msg, "gate says no") || !strings.Contains(msg, "h2") {
		t.Errorf("the abort does not show the hook's output and node: %s", msg)
	}
	// Pre hooks of one operation run in the order they are declared:
	// envnode's ran, then the gate closed h2's join.
	if s := p.Step(gate); !slices.Contains(s.WaitsFor, `hook.envnode["pre-join/h2"]`) {
		t.Errorf("the gate does not wait for the pre-join hook declared before it: %v", s.WaitsFor)
	}
	for _, a := range []string{"host.h2", `hook.envnode["post-join/h2"]`} {
		if res.Skipped[a] != gate {
			t.Errorf("%s: skipped for %q, want because of %s", a, res.Skipped[a], gate)
		}
	}
	if !slices.Contains(res.Applied, "host.h3") {
		t.Fatalf("h3's join did not go on: applied %v", res.Applied)
	}
	if got := hostFile(t, tb, "h3", hookOut+"/attempts"); got != "1\n2\n3\n" {
		t.Errorf("retry made attempts %q, want 1 2 3", got)
	}
	wantEnv(t, tb, c, "envnode", "prehook", "join", "h3", nil)
	wantEnv(t, tb, c, "envnode", "posthook", "join", "h3", nil)
	wantEnv(t, tb, c, "envcluster", "prehook", "join", "h0", clusterArgs)
	if got := hostFile(t, tb, "h2", hookOut+"/envnode-posthook-join-h2.env"); got != "" {
		t.Errorf("a hook of h2's aborted join ran: %q", got)
	}
	st = readState()
	if _, ok := st.Lookup("host.h2"); ok {
		t.Error("host.h2 is in state although its pre-join hook aborted")
	}
	flaky := hookRunsOf(st, `hook.flaky["pre-join/h3"]`)
	if len(flaky) != 1 || len(flaky[0].Attempts) != 3 || flaky[0].Decision != "continue" || !strings.Contains(flaky[0].Output, "attempt 3 failed") {
		t.Errorf("flaky record %+v", flaky)
	} else if gap := flaky[0].Attempts[1].Start.Sub(flaky[0].Attempts[0].Finish); gap < 200*time.Millisecond {
		t.Errorf("retry backoff %v, want at least 200ms", gap)
	}
	stubborn := hookRunsOf(st, `hook.stubborn["post-join/h3"]`)
	if len(stubborn) != 1 || len(stubborn[0].Attempts) != 1 {
		t.Fatalf("stubborn record %+v", stubborn)
	}
	sa := stubborn[0].Attempts[0]
	if sa.Signal != "KILL" || !sa.TimedOut || sa.ExitCode != -1 || !strings.Contains(stubborn[0].Output, "got TERM") || stubborn[0].Decision != "continue" {
		t.Errorf("stubborn attempt %+v output %q decision %s", sa, stubborn[0].Output, stubborn[0].Decision)
	}
	start, term := remoteStamp(t, tb, "h3", hookOut+"/stubborn.start"), remoteStamp(t, tb, "h3", hookOut+"/stubborn.term")
	// Not before the limit, counted from before eggo started the script
	// (the script's own stamp comes after its shell and date started);
	// the upper bound from the script's stamp.
	within(t, "stubborn: start to SIGTERM", term.Sub(sa.Start), 2*time.Second, time.Hour)
	within(t, "stubborn: start to SIGTERM", term.Sub(start), 0, 4*time.Second)
	within(t, "stubborn: SIGTERM to the end (SIGKILL)", sa.Finish.Sub(term), 2*time.Second, 5*time.Second)
	if out, _ := tb.Exec(context.Background(), "h3", "pgrep -f 'stubbor[n]' || pgrep -f 'sleep 0.0[5]' || true"); strings.TrimSpace(out) != "" {
		t.Errorf("stubborn hook left processes on h3: %s", out)
	}
	gates := hookRunsOf(st, gate)
	if len(gates) != 1 || gates[0].Decision != "abort" || gates[0].Attempts[0].ExitCode != 3 || !strings.Contains(gates[0].Output, "gate says no") {
		t.Errorf("gate record %+v", gates)
	}
	if len(res.HookWarnings) != 2 {
		t.Errorf("warnings %q: want the flaky and stubborn hooks' (continue)", res.HookWarnings)
	}

	// The gate lifted: h2 joins now, and nothing else runs again. A web
	// check hook measures h2 after its join, with the node's address in
	// the URL; it succeeds on its third measurement's value.
	var asked sync.Map
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Store(r.URL.Path, true)
		fmt.Fprintf(w, `{"node": {"ready": %d}}`, hits.Add(1))
	}))
	defer srv.Close()
	writeHooksConfig(t, tb, dir, []string{"h0", "h1", "h2", "h3"}, `
hook "ready" {
  on    = "post-join"
  roles = ["worker"]
  web {
    url       = "`+srv.URL+`/nodes/{{ args.ip }}"
    json_path = "{$.node.ready}"
  }
  args              = { ip = "{{ node.ip }}" }
  count             = 3
  interval          = "100ms"
  success_condition = "asInt(result) >= 1"
}
`)
	p, res = runApply(t, dir, hostOnly)
	if !res.OK() || !slices.Contains(res.Applied, "host.h2") {
		t.Fatalf("second join: %s (applied %v)", engine.FailureSummary(p, res), res.Applied)
	}
	wantEnv(t, tb, c, "envnode", "prehook", "join", "h2", nil)
	wantEnv(t, tb, c, "envnode", "posthook", "join", "h2", nil)
	if hs := hookSteps(p); len(hs) != 5 {
		t.Errorf("h2's join ran hooks %v, want envnode pre/post and ready on h2, envcluster pre/post", hs)
	}
	h2, _ := tb.Host("h2")
	if _, ok := asked.Load("/nodes/" + h2.Address); !ok || hits.Load() != 3 {
		t.Errorf("the check asked %d times, for /nodes/%s: %v", hits.Load(), h2.Address, ok)
	}
	ready := hookRunsOf(readState(), `hook.ready["post-join/h2"]`)
	if len(ready) != 1 || ready[0].Phase != "Successful" || len(ready[0].Measurements) != 3 || ready[0].Measurements[2].Value != "3" || ready[0].Decision != "ok" {
		t.Errorf("ready record %+v", ready)
	}

	// From now on the endpoint answers a value that is not a number.
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"node": {"ready": "no"}}`)
	})

	// Delete h3, with a check after it that cannot read a number.
	writeHooksConfig(t, tb, dir, []string{"h0", "h1", "h2"}, `
hook "gone" {
  on    = "post-delete"
  web {
    url       = "`+srv.URL+`/gone"
    json_path = "{$.node.ready}"
  }
  success_condition = "asInt(result) == 0"
}
`)
	p, res = runApply(t, dir, hostOnly)
	if !res.OK() {
		t.Fatalf("delete: %s", engine.FailureSummary(p, res))
	}
	gone := hookRunsOf(readState(), `hook.gone["post-delete/h3"]`)
	if len(gone) != 1 || gone[0].Phase != "Error" || gone[0].Decision != "continue" || !strings.Contains(gone[0].Error, "no") {
		t.Errorf("gone record %+v", gone)
	}
	if len(res.HookWarnings) != 1 || !strings.Contains(res.HookWarnings[0], "gone") {
		t.Errorf("delete warnings %q", res.HookWarnings)
	}
	wantEnv(t, tb, c, "envnode", "prehook", "delete", "h3", nil)
	wantEnv(t, tb, c, "envnode", "posthook", "delete", "h3", nil)
	wantEnv(t, tb, c, "envcluster", "posthook", "delete", "h0", clusterArgs)

	// Destroy: cleanup hooks on every node, the cluster one on h0.
	p, res = runApply(t, dir, func(r *runOpts) { hostOnly(r); r.req.Destroy = true })
	if !res.OK() {
		t.Fatalf("destroy: %s", engine.FailureSummary(p, res))
	}
	for _, n := range []string{"h0", "h1", "h2"} {
		wantEnv(t, tb, c, "envnode", "prehook", "cleanup", n, nil)
		wantEnv(t, tb, c, "envnode", "posthook", "cleanup", n, nil)
	}
	wantEnv(t, tb, c, "envcluster", "prehook", "cleanup", "h0", clusterArgs)
	wantEnv(t, tb, c, "envcluster", "posthook", "cleanup", "h0", clusterArgs)
	st = readState()
	if len(st.Resources) != 0 {
		t.Errorf("destroy left %d resources", len(st.Resources))
	}
	// Every run is in the audit log, in order, beyond what the state keeps.
	log, err := os.ReadFile(engine.AuditLogPath(filepath.Join(dir, "eggo.state")))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(log), "\n"); lines != len(st.HookRuns) {
		t.Errorf("audit log has %d runs, state %d", lines, len(st.HookRuns))
	}
}

// within fails unless lo <= d <= hi.
func within(t *testing.T, what string, d, lo, hi time.Duration) {
	t.Helper()
	if d < lo || d > hi {
		t.Errorf("%s took %v, want between %v and %v", what, d, lo, hi)
	}
}
