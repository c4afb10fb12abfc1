package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// What a hostile state writer, lock holder or node sends a terminal, and
// how eggo shows each (text.Safe's notation).
const (
	osc52     = "\x1b]52;c;ZWdnbw==\x07" // sets the clipboard
	osc52Seen = `\x1b]52;c;ZWdnbw==\a`
	clearCSI  = "\x1b[2J" // clears the screen
	clearSeen = `\x1b[2J`
	c1CSI     = "\u009bK" // CSI as one C1 character: erases the line
	c1Seen    = `\u009bK`
)

// assertTerminalSafe fails when eggo's output holds a byte a terminal
// would act on: ESC, BEL, a carriage return, a C1 control, or bytes that
// are not UTF-8. eggo's own colours are off (no terminal), so any ESC is
// someone else's.
func assertTerminalSafe(t *testing.T, what string, r result) {
	t.Helper()
	all := r.all()
	if !utf8.ValidString(all) {
		t.Errorf("%s printed bytes that are not UTF-8:\n%q", what, all)
	}
	for _, c := range all {
		if c == 0x1b || c == 0x07 || c == '\r' || (c >= 0x80 && c <= 0x9f) {
			t.Errorf("%s printed the control character %U raw:\n%q", what, c, all)
			return
		}
	}
}

func TestHostileStateIsShownEscaped(t *testing.T) {
	dir := t.TempDir()
	st := state.New()
	st.Lineage = "lin-" + osc52
	st.EggoVersion = "0.1" + clearCSI + c1CSI
	addr := "host.n1"
	st.Resources = []state.Resource{{Address: addr, Kind: "host", Node: "n1", Status: state.StatusPending,
		Attributes:   map[string]any{"motd" + clearCSI: "hi" + osc52, "banner": "one\ntwo" + c1CSI + "\n"},
		Dependencies: []string{"cert.ca" + clearCSI}}}
	st.Outputs = map[string]any{"endpoint" + clearCSI: "https://" + osc52}
	if err := state.NewStore(filepath.Join(dir, "eggo.state")).Write(st); err != nil {
		t.Fatal(err)
	}
	chdir := "-chdir=" + dir
	for _, args := range [][]string{{"show"}, {"state", "list"}, {"state", "show", addr}} {
		r := eggo(t, invocation{}, append([]string{chdir}, args...)...)
		if r.code != 0 {
			t.Fatalf("eggo %v: exit %d\n%s", args, r.code, r.all())
		}
		assertTerminalSafe(t, strings.Join(args, " "), r)
		mustContain(t, strings.Join(args, " "), r.out, "host.n1")
	}
	// An address is KIND.NAME: one holding a control character is refused
	// when the file is read, and the refusal shows it escaped.
	hostileDir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(dir, "eggo.state"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(hostileDir, "eggo.state"), strings.Replace(string(data), `"address": "host.n1"`, `"address": "host.n1\u001b[2J"`, 1))
	r := eggo(t, invocation{}, "-chdir="+hostileDir, "show")
	if r.code != 1 {
		t.Fatalf("show of a hostile address: exit %d, want 1\n%s", r.code, r.all())
	}
	assertTerminalSafe(t, "show of a hostile address", r)
	mustContain(t, "show of a hostile address", r.err, `the address "host.n1`+clearSeen+`" is not KIND.NAME`)

	r = eggo(t, invocation{}, chdir, "show")
	mustContain(t, "show", r.out, "lineage lin-"+osc52Seen+", written by eggo 0.1"+clearSeen+c1Seen,
		"(pending)", "motd"+clearSeen, `"hi`+osc52Seen, `"one\ntwo`+c1Seen+`\n"`,
		"depends on: cert.ca"+clearSeen, "endpoint"+clearSeen)

	// An error that names the lineage: a push into this state from another cluster.
	other := filepath.Join(dir, "other.state")
	if err := state.NewStore(other).Write(state.New()); err != nil {
		t.Fatal(err)
	}
	r = eggo(t, invocation{}, chdir, "state", "push", other)
	if r.code != 1 {
		t.Fatalf("state push: exit %d, want 1\n%s", r.code, r.all())
	}
	assertTerminalSafe(t, "state push", r)
	mustContain(t, "state push", r.err, "another cluster's state (lineage lin-"+osc52Seen)

	// -json is JSON: valid, and the values exact once decoded.
	r = eggo(t, invocation{}, chdir, "show", "-json")
	var doc struct {
		Lineage string `json:"lineage"`
	}
	if !json.Valid([]byte(r.out)) {
		t.Fatalf("show -json is not JSON:\n%s", r.out)
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil || (doc.Lineage != "" && doc.Lineage != st.Lineage) {
		t.Errorf("show -json: lineage %q (%v), want it exact", doc.Lineage, err)
	}
}

// writeLock leaves a lock on statePath as another run would, its holder
// and operation written by whoever wrote the file.
func writeLock(t *testing.T, statePath string) {
	t.Helper()
	info := state.LockInfo{ID: "lock-1", Owner: "mallory" + osc52 + "@elsewhere", PID: 42, Operation: "apply" + clearCSI,
		Created: time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)}
	data, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, statePath+".lock", string(data))
}

func TestHostileLockIsShownEscaped(t *testing.T) {
	f := newFixture(t)
	writeLock(t, f.statePath())
	holder := "mallory" + osc52Seen + "@elsewhere (pid 42, apply" + clearSeen
	r := f.mustRun(1, "apply", "-auto-approve")
	assertTerminalSafe(t, "apply", r)
	mustContain(t, "apply", r.err, "is locked by "+holder)

	r = f.mustRun(1, "force-unlock", "lock-2")
	assertTerminalSafe(t, "force-unlock lock-2", r)
	mustContain(t, "force-unlock lock-2", r.err, "held by "+holder)

	r = f.mustRun(0, "force-unlock", "lock-1")
	assertTerminalSafe(t, "force-unlock lock-1", r)
	mustContain(t, "force-unlock lock-1", r.out, "The state lock lock-1 was removed.")
}

// evilScript prints what a compromised node would: a carriage return, an
// OSC 52 clipboard write, a clear screen, a C1 CSI and a byte that is not
// UTF-8, then fails.
const evilScript = "#!/bin/sh\nprintf 'before\\r\\033]52;c;ZWdnbw==\\007\\033[2J\\302\\233K\\377after\\n'\nexit 3\n"

var evilSeen = []string{`before\r`, osc52Seen, clearSeen, c1Seen, `\xffafter`}

// evilRecorded is the output as the state records it: JSON, which holds
// no byte that is not UTF-8 (U+FFFD stands for it).
var evilRecorded = `before\r` + osc52Seen + clearSeen + c1Seen + "\uFFFDafter"

func TestHookOutputIsShownEscaped(t *testing.T) {
	f := newFixture(t)
	f.writeScript("evil.sh", evilScript)

	// An aborting hook: its output reaches the operator in the apply's error.
	r := f.mustRun(1, "apply", "-auto-approve", "--prehook=evil.sh")
	assertTerminalSafe(t, "apply (abort)", r)
	mustContain(t, "apply (abort)", r.err, evilSeen...)

	// A continuing one: in the progress line and the summary's warning.
	f.write("hook.hcl", "hook \"evil\" {\n  on     = \"pre-deploy\"\n  source = \"evil.sh\"\n  policy = \"continue\"\n}\n")
	r = f.mustRun(0, "apply", "-auto-approve")
	assertTerminalSafe(t, "apply (continue)", r)
	mustContain(t, "apply (continue)", r.out, append([]string{"warning: hook.evil", "Warning: hook.evil"}, evilSeen...)...)

	for _, args := range [][]string{{"hooks"}, {"hooks", "-log"}, {"hooks", "show", "1"}, {"hooks", "show", "2"}} {
		r = f.mustRun(0, args...)
		assertTerminalSafe(t, strings.Join(args, " "), r)
	}
	r = f.mustRun(0, "hooks", "show", "2")
	mustContain(t, "hooks show 2", r.out, "#1  exit 3", "control characters escaped):\n"+evilRecorded)

	// -json keeps the output as the hook printed it, escaped as JSON.
	r = f.mustRun(0, "hooks", "show", "-json", "2")
	var run state.HookRun
	if err := json.Unmarshal([]byte(r.out), &run); err != nil {
		t.Fatalf("hooks show -json: %v\n%s", err, r.out)
	}
	if !strings.Contains(run.Output, "before\r"+osc52+clearCSI+c1CSI) {
		t.Errorf("hooks show -json: output %q, want the hook's bytes", run.Output)
	}
}

// TestRemoteStderrInAnErrorIsShownEscaped makes every command the local
// transport runs fail with a hostile stderr: a sh ahead of the real one
// on PATH. The error that quotes it, and the debug log, show it escaped.
func TestRemoteStderrInAnErrorIsShownEscaped(t *testing.T) {
	f := newFixture(t)
	bin := t.TempDir()
	sh := "#!/bin/sh\nprintf 'remote says \\033]52;c;ZWdnbw==\\007\\033[2J\\302\\233K no\\n' >&2\nexit 7\n"
	if err := os.WriteFile(filepath.Join(bin, "sh"), []byte(sh), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	r := eggo(t, invocation{env: f.env("EGGO_LOG=debug")}, f.chdir(), "apply", "-auto-approve")
	if r.code != 1 {
		t.Fatalf("apply: exit %d, want 1\n%s", r.code, r.all())
	}
	assertTerminalSafe(t, "apply", r)
	mustContain(t, "apply", r.err, "exited 7", "remote says "+osc52Seen+clearSeen+c1Seen+" no")
}

// The plan and the progress of an apply show a state's addresses, keys
// and values, a host's reasons and a node's messages made safe.
func TestPlanAndProgressAreShownEscaped(t *testing.T) {
	addr := "host.old" + clearCSI
	p := &engine.Plan{Warnings: []string{"node says " + osc52}, Unreadable: []string{addr + ".key"}, Steps: []*engine.Step{
		{Change: resources.Change{Addr: addr, Kind: "host", Action: resources.Delete,
			Before: resources.Attrs{"motd" + clearCSI: "hi" + osc52, "text": "one\ntwo" + c1CSI + "\n"}}},
		{Change: resources.Change{Addr: "host.n1", Kind: "host", Action: resources.Update,
			Reasons: []resources.Reason{{Code: resources.ReasonDrift, Detail: "the host says " + osc52}},
			Before:  resources.Attrs{"motd": "a\nb\n", "k" + clearCSI: "x"}, After: resources.Attrs{"motd": "a\nb" + c1CSI + "\n", "k" + clearCSI: "y"}}},
	}}
	var b strings.Builder
	renderPlan(&b, p, colorizer(false))
	out := b.String()
	assertTerminalSafe(t, "plan", result{out: out})
	mustContain(t, "plan", out, "Warning: node says "+osc52Seen, "- "+"host.old"+clearSeen+".key", "# host.old"+clearSeen+" will be destroyed",
		"motd"+clearSeen+` = "hi`+osc52Seen+`"`, `"one\ntwo`+c1Seen+`\n"`, "changed outside eggo: the host says "+osc52Seen,
		"k"+clearSeen+` = "x" -> "y"`, `"a\nb\n" -> "a\nb`+c1Seen+`\n"`)

	var w strings.Builder
	v := newProgressView(&w, colorizer(false))
	c := &resources.Change{Addr: addr, Action: resources.Create}
	v.PreApply(c)
	v.Progress(addr, "node says\n"+osc52)
	v.beat()
	v.PostApply(c, nil, time.Second)
	assertTerminalSafe(t, "progress", result{out: w.String()})
	mustContain(t, "progress", w.String(), "host.old"+clearSeen+": Creating...", "node says\n"+osc52Seen, "Creation complete")
}
