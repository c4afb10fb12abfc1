package command

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/state"
)

// HooksCommand is `eggo hooks`: the recorded hook runs, newest last.
type HooksCommand struct{ *meta }

func (c *HooksCommand) Synopsis() string { return "List the recorded hook runs" }

func (c *HooksCommand) Help() string {
	return `Usage: eggo [-chdir=DIR] hooks [-state=PATH] [-json] [-log]

  Lists the hook runs recorded by apply and destroy, newest last: ID,
  finish time, hook, event, node, type, result (exit code, the signal that
  ended a script, or a check's phase), attempts and the decision taken
  (ok, continue, abort). 'eggo hooks show ID' shows one run in full.

  The state keeps the last 200 runs; every run is also appended to the audit
  log beside it (PATH.hooks.log), which -log reads instead.

Options:
  -state=PATH   State file (default eggo.state).
  -log          Read the full audit log instead of the state's bounded list.
  -json         The runs as one JSON array.

` + stateFlagsHelp + `

Exit codes: 0 success (also when no run is recorded), 1 error.
`
}

func (c *HooksCommand) Run(args []string) int {
	var fromLogFlag bool
	a, ok := c.parseStateArgs("hooks", args, func(fs *flag.FlagSet) { fs.BoolVar(&fromLogFlag, "log", false, "") })
	if !ok {
		return 1
	}
	defer a.ws.Close()
	if len(a.rest) > 0 {
		c.errorf("usage: eggo hooks [-state=PATH] [-json] [-log] (eggo hooks show ID for one run)")
		return 1
	}
	var runs []state.HookRun
	var err error
	if fromLogFlag {
		var warns []string
		runs, warns, err = readAuditLog(a.ws.AuditLogPath())
		for _, w := range warns {
			// Text on stderr in either format: stdout keeps the runs.
			fmt.Fprintln(c.streams.Err, warning(c.col(), w))
		}
	} else {
		runs, err = stateHookRuns(a.ws)
	}
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	c.view(a.js).HookRuns(runs)
	return 0
}

func decisionColour(d string) string {
	switch d {
	case "ok":
		return green
	case "continue":
		return yellow
	}
	return red
}

// hookResult says how a run ended, in one word or three: a shell hook's
// last attempt ("exit 0", "SIGTERM after timeout"), a check's phase.
func hookResult(r state.HookRun) string {
	if r.Type != "" && r.Type != "shell" {
		if r.Phase != "" {
			return r.Phase
		}
		return "error"
	}
	if len(r.Attempts) == 0 {
		if r.Error != "" {
			return "error"
		}
		return "-"
	}
	return attemptResult(r.Attempts[len(r.Attempts)-1])
}

func attemptResult(a state.HookAttempt) string {
	switch {
	case a.Signal != "":
		s := "SIG" + strings.TrimPrefix(a.Signal, "SIG")
		if a.TimedOut {
			s += " after timeout"
		}
		return s
	case a.ExitCode >= 0:
		return "exit " + strconv.Itoa(a.ExitCode)
	case a.Error != "":
		return "error" // it never ran: the upload or the connection failed
	}
	return "-"
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// stateHookRuns reads the runs the state keeps; no state is no runs.
func stateHookRuns(ws *engine.Workspace) ([]state.HookRun, error) {
	st, err := ws.State()
	if err != nil || st == nil {
		return nil, err
	}
	return st.HookRuns, nil
}

// readAuditLog reads the audit log, one JSON record a line; no log is no
// runs. A last line without its newline is a write that a crash cut short:
// it is skipped with a warning. Any other bad line is an error naming it.
func readAuditLog(path string) ([]state.HookRun, []string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("hook audit log: %w", err)
	}
	defer f.Close()
	var runs []state.HookRun
	var warns []string
	rd := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := rd.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("hook audit log %s: %w", path, err)
		}
		complete := err == nil
		if len(bytes.TrimSpace(line)) > 0 {
			var r state.HookRun
			if jerr := json.Unmarshal(line, &r); jerr != nil {
				if !complete {
					warns = append(warns, fmt.Sprintf("%s:%d: skipped an unfinished last record (a run that was cut short while writing it)", path, n))
					break
				}
				return nil, nil, fmt.Errorf("%s:%d: not a hook run record: %v", path, n, jerr)
			}
			runs = append(runs, r)
		}
		if !complete {
			break
		}
	}
	return runs, warns, nil
}
