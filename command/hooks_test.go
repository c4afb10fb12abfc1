package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/state"
)

// writeScript puts an executable script in the fixture's directory, which
// is the working directory of every fixture command (-chdir).
func (f *fixture) writeScript(name, content string) {
	f.t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		f.t.Fatal(err)
	}
}

func TestPlanListsCommandLineHooks(t *testing.T) {
	f := newFixture(t)
	f.writeScript("x.sh", "echo x\n")
	f.writeScript("post/10-a.sh", "echo a\n")
	// n1 is a master and etcd node, no worker: the worker hook selects nothing.
	r := f.mustRun(0, "plan", "--prehook=x.sh,master", "-posthook=post", "--prehook=x.sh,worker", "--cluster-posthook=x.sh")
	mustContain(t, "plan", r.out, "Hooks that will run:",
		`hook.cli_prehook_1["pre-deploy/n1"] on n1 (shell hook, pre-deploy of n1, on failure abort)`,
		`hook.cli_posthook_1["post-deploy/n1"] on n1 (shell hook, post-deploy of n1, on failure abort)`,
		`hook.cli_cluster_posthook_1["post-deploy"] on n1`,
		"Plan: 1 to add, 0 to change, 0 to destroy.")
	if strings.Contains(r.out, "cli_prehook_2") {
		t.Errorf("a --prehook for workers was placed on a node without the role:\n%s", r.out)
	}

	r = f.mustRun(0, "plan", "-json", "--prehook=x.sh")
	if !strings.Contains(r.out, `cli_prehook_1`) {
		t.Errorf("plan -json does not carry the hook:\n%s", r.out)
	}
}

func TestHookFlagErrorsNameTheFlag(t *testing.T) {
	f := newFixture(t)
	f.writeScript("x.sh", "echo x\n")
	for _, tc := range []struct {
		flag string
		want []string
	}{
		{"--prehook=x.sh,boss", []string{"Invalid hook flag", `--prehook=x.sh,boss: unknown role "boss"`}},
		{"--posthook=missing.sh", []string{"Invalid hook flag", "--posthook=missing.sh: missing.sh (" + filepath.Join(f.dir, "missing.sh") + ")", "does not exist"}},
		{"--prehook=x.sh,master,etcd", []string{"more than one comma"}},
	} {
		r := f.mustRun(1, "plan", tc.flag)
		mustContain(t, "plan "+tc.flag, r.err, tc.want...)
	}
	r := f.mustRun(1, "destroy", "-auto-approve", "--cluster-prehook=")
	mustContain(t, "destroy", r.err, "--cluster-prehook=: no script path")
}

func TestSavedPlanRefusesHookFlags(t *testing.T) {
	f := newFixture(t)
	f.writeScript("x.sh", "echo x\n")
	planFile := filepath.Join(f.dir, "tfplan")
	r := f.mustRun(0, "plan", "--prehook=x.sh", "-out="+planFile)
	mustContain(t, "plan -out", r.out, `hook.cli_prehook_1["pre-deploy/n1"]`)
	for _, args := range [][]string{
		{"apply", "--prehook=x.sh", planFile},
		{"apply", planFile, "--cluster-posthook=x.sh"},
	} {
		r := f.mustRun(1, args...)
		mustContain(t, strings.Join(args, " "), r.err, "a saved plan runs exactly the hooks it shows", "belongs to `eggo plan`")
	}
	if len(f.rootFiles()) != 0 {
		t.Fatal("a refused saved plan changed the host")
	}
	// The saved plan carries its hook: applying it runs it.
	f.mustRun(0, "apply", planFile)
	r = f.mustRun(0, "hooks")
	mustContain(t, "hooks", r.out, "cli_prehook_1", "pre-deploy", "exit 0", "ok")
}

// TestHookFlagsRunAndAreRecorded applies and destroys with hook flags over
// the local transport, then reads the records back with eggo hooks.
func TestHookFlagsRunAndAreRecorded(t *testing.T) {
	f := newFixture(t)
	mark := filepath.Join(t.TempDir(), "ran")
	f.writeScript("pre.sh", "#!/bin/sh\necho \"$EGGO_HOOK_NAME $EGGO_OPERATOR $EGGO_HOOK_TYPE\" >> "+mark+"\necho printed by pre\n")
	f.writeScript("fail.sh", "#!/bin/sh\necho about to fail\nexit 3\n")
	f.mustRun(0, "apply", "-auto-approve", "--prehook=pre.sh,etcd", "--cluster-posthook=pre.sh")
	f.mustRun(0, "destroy", "-auto-approve", "--posthook=fail.sh")
	got, _ := os.ReadFile(mark)
	want := "cli_prehook_1 deploy prehook\ncli_cluster_posthook_1 deploy posthook\n"
	if string(got) != want {
		t.Fatalf("the scripts ran as\n%s\nwant\n%s", got, want)
	}

	r := f.mustRun(0, "hooks")
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	if len(lines) != 4 {
		t.Fatalf("eggo hooks: want a header and 3 runs, got\n%s", r.out)
	}
	mustContain(t, "header", lines[0], "ID", "FINISHED", "HOOK", "EVENT", "NODE", "TYPE", "RESULT", "ATTEMPTS", "DECISION")
	mustContain(t, "first run", lines[1], "cli_prehook_1", "pre-deploy", "n1", "shell", "exit 0", "ok")
	mustContain(t, "third run", lines[3], "cli_posthook_1", "post-cleanup", "exit 3", "continue")
	// The ID is the first field: "1 " or "3 " alone can come from the time it finished.
	if id1, id3 := strings.Fields(lines[1])[0], strings.Fields(lines[3])[0]; id1 != "1" || id3 != "3" {
		t.Errorf("run IDs %q and %q, want 1 and 3:\n%s", id1, id3, r.out)
	}

	r = f.mustRun(0, "hooks", "show", "3")
	mustContain(t, "hooks show 3", r.out, `Hook run 3: hook.cli_posthook_1["post-cleanup/n1"]`, "operator cleanup",
		"decision:  continue", "#1  exit 3", "script fail.sh", "about to fail\n")
}

// hookRecords writes a state holding runs and an audit log holding older
// ones too, as apply would have left them.
func hookRecords(t *testing.T) (dir, statePath string, runs []state.HookRun) {
	t.Helper()
	dir = t.TempDir()
	statePath = filepath.Join(dir, "eggo.state")
	st := state.New()
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	add := func(r state.HookRun) { runs = append(runs, st.AddHookRun(r)) }
	add(state.HookRun{Hook: "prepare", Address: `hook.prepare["pre-join/w1"]`, Node: "w1", Operator: "join", Event: "pre-join", Type: "shell",
		Start: t0, Finish: t0.Add(95 * time.Second), Decision: "abort",
		Error:  "hook \"prepare\" on w1: script 20-b.sh timed out after 1m0s and was killed (SIGKILL) 30s after SIGTERM",
		Output: "line one\n  indented two\nno newline at end",
		Attempts: []state.HookAttempt{
			{N: 1, Start: t0, Finish: t0.Add(30 * time.Second), ExitCode: 4, Script: "10-a.sh", Error: "script 10-a.sh exited 4"},
			{N: 2, Start: t0.Add(35 * time.Second), Finish: t0.Add(95 * time.Second), ExitCode: -1, Signal: "TERM", TimedOut: true, Script: "20-b.sh"},
		}})
	add(state.HookRun{Hook: "canary", Address: `hook.canary["post-deploy"]`, Node: "m0", Operator: "deploy", Event: "post-deploy", Type: "web",
		Start: t0.Add(time.Minute), Finish: t0.Add(2 * time.Minute), Phase: "Failed", Decision: "continue",
		Error:    "hook \"canary\" on m0: check Failed: failure_condition true",
		Attempts: []state.HookAttempt{{N: 1, Start: t0.Add(time.Minute), Finish: t0.Add(2 * time.Minute), ExitCode: -1, Error: "failure_condition true"}},
		Measurements: []state.HookMeasurement{
			{Start: t0.Add(time.Minute), Finish: t0.Add(time.Minute + time.Second), Value: "12", Phase: "Successful"},
			{Start: t0.Add(2 * time.Minute), Finish: t0.Add(2*time.Minute + time.Second), Value: "99", Phase: "Failed", Message: "failure_condition true"},
		}})
	if err := state.NewStore(statePath).Write(st); err != nil {
		t.Fatal(err)
	}
	// The audit log also holds run 7 of an older lineage and both current runs.
	old := state.HookRun{ID: "7", Hook: "old", Address: `hook.old["pre-cleanup/w9"]`, Node: "w9", Operator: "cleanup", Event: "pre-cleanup",
		Type: "shell", Start: t0.Add(-time.Hour), Finish: t0.Add(-time.Hour + time.Second), Decision: "ok",
		Attempts: []state.HookAttempt{{N: 1, ExitCode: 0, Start: t0.Add(-time.Hour), Finish: t0.Add(-time.Hour + time.Second)}}}
	var log []byte
	for _, r := range append([]state.HookRun{old}, runs...) {
		line, _ := json.Marshal(r)
		log = append(append(log, line...), '\n')
	}
	if err := os.WriteFile(engine.AuditLogPath(statePath), log, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, statePath, runs
}

func TestHooksListsRecordedRuns(t *testing.T) {
	_, statePath, runs := hookRecords(t)
	r := eggo(t, invocation{}, "hooks", "-state="+statePath)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.all())
	}
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and two runs (newest last):\n%s", r.out)
	}
	mustContain(t, "run 1", lines[1], "1 ", formatTime(runs[0].Finish), "prepare", "pre-join", "w1", "shell", "SIGTERM after timeout", " 2 ", "abort")
	mustContain(t, "run 2", lines[2], "2 ", "canary", "post-deploy", "m0", "web", "Failed", " 1 ", "continue")
	if strings.Contains(r.out, "old") {
		t.Errorf("without -log, runs only in the audit log are listed:\n%s", r.out)
	}

	r = eggo(t, invocation{}, "hooks", "-state="+statePath, "-log")
	lines = strings.Split(strings.TrimSpace(r.out), "\n")
	if len(lines) != 4 || !strings.Contains(lines[1], "old") || !strings.Contains(lines[1], "pre-cleanup") {
		t.Fatalf("hooks -log: want the older run first:\n%s", r.out)
	}

	r = eggo(t, invocation{}, "hooks", "-state="+statePath, "-json")
	var got []state.HookRun
	if err := json.Unmarshal([]byte(r.out), &got); err != nil {
		t.Fatalf("hooks -json is not a JSON array of runs: %v\n%s", err, r.out)
	}
	if len(got) != 2 || got[0].ID != "1" || got[1].Phase != "Failed" || got[0].Attempts[1].Signal != "TERM" {
		t.Errorf("hooks -json = %+v", got)
	}
}

func TestHooksWithNothingRecorded(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.state")
	for _, args := range [][]string{{"hooks", "-state=" + missing}, {"hooks", "-state=" + missing, "-log"}} {
		r := eggo(t, invocation{}, args...)
		if r.code != 0 || strings.TrimSpace(r.out) != "No hook runs recorded." {
			t.Errorf("%v: exit %d, out %q err %q", args, r.code, r.out, r.err)
		}
	}
	r := eggo(t, invocation{}, "hooks", "-state="+missing, "-json")
	if r.code != 0 || strings.TrimSpace(r.out) != "[]" {
		t.Errorf("hooks -json with no state: exit %d, out %q", r.code, r.out)
	}
	// A state with resources and no hook run.
	statePath := filepath.Join(dir, "eggo.state")
	if err := state.NewStore(statePath).Write(state.New()); err != nil {
		t.Fatal(err)
	}
	if r := eggo(t, invocation{}, "hooks", "-state="+statePath); r.code != 0 || !strings.Contains(r.out, "No hook runs recorded.") {
		t.Errorf("empty state: exit %d, out %q", r.code, r.out)
	}
}

func TestHooksShowOneRunInFull(t *testing.T) {
	_, statePath, runs := hookRecords(t)
	r := eggo(t, invocation{}, "hooks", "show", "-state="+statePath, "1")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.all())
	}
	mustContain(t, "show 1", r.out,
		`Hook run 1: hook.prepare["pre-join/w1"]`, "prepare (shell)", "pre-join (operator join)", "node:      w1",
		"started:   "+formatTime(runs[0].Start), "(took 1m35s)", "result:    SIGTERM after timeout", "decision:  abort",
		"timed out after 1m0s and was killed (SIGKILL)",
		"#1  exit 4", "(took 30s)", "script 10-a.sh", "error: script 10-a.sh exited 4",
		"#2  SIGTERM after timeout", "script 20-b.sh, signal TERM, timed out",
		// The output tail verbatim, its indentation kept, a newline added at the end.
		":\nline one\n  indented two\nno newline at end\n")

	r = eggo(t, invocation{}, "hooks", "show", "-state="+statePath, "2")
	mustContain(t, "show 2", r.out, "canary (web)", "phase:     Failed", "decision:  continue", "Measurements:",
		"1. Successful  value 12", "2. Failed  value 99", "failure_condition true")

	// Only in the audit log.
	r = eggo(t, invocation{}, "hooks", "show", "-state="+statePath, "7")
	if r.code != 0 {
		t.Fatalf("hooks show 7 (audit log only): exit %d: %s", r.code, r.all())
	}
	mustContain(t, "show 7", r.out, `Hook run 7: hook.old["pre-cleanup/w9"]`, "#1  exit 0")

	r = eggo(t, invocation{}, "hooks", "show", "-state="+statePath, "-json", "2")
	var got state.HookRun
	if err := json.Unmarshal([]byte(r.out), &got); err != nil || got.ID != "2" || len(got.Measurements) != 2 {
		t.Errorf("hooks show -json: %v %+v\n%s", err, got, r.out)
	}
}

func TestHooksShowUnknownID(t *testing.T) {
	_, statePath, _ := hookRecords(t)
	r := eggo(t, invocation{}, "hooks", "show", "-state="+statePath, "42")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1", r.code)
	}
	mustContain(t, "stderr", r.err, `no hook run with ID "42"`, "records 2 runs (IDs 1 to 2)", "audit log", "3 runs")
	if r := eggo(t, invocation{}, "hooks", "show", "-state="+statePath); r.code != 1 || !strings.Contains(r.err, "usage: eggo hooks show") {
		t.Errorf("hooks show without ID: exit %d, %q", r.code, r.err)
	}
}

func TestHooksLogWithATornLastLine(t *testing.T) {
	_, statePath, _ := hookRecords(t)
	logPath := engine.AuditLogPath(statePath)
	f, err := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"3","hook":"cut`)
	f.Close()
	r := eggo(t, invocation{}, "hooks", "-state="+statePath, "-log")
	if r.code != 0 || strings.Count(strings.TrimSpace(r.out), "\n") != 3 || !strings.Contains(r.err, logPath+":4: skipped an unfinished last record") {
		t.Fatalf("torn last line: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	// A bad line in the middle is an error naming the line.
	os.WriteFile(logPath, []byte("{\"id\":\"1\"}\nnot json\n{\"id\":\"2\"}\n"), 0o600)
	r = eggo(t, invocation{}, "hooks", "-state="+statePath, "-log")
	if r.code != 1 || !strings.Contains(r.err, logPath+":2: not a hook run record") {
		t.Fatalf("bad middle line: exit %d\n%s", r.code, r.err)
	}
}
