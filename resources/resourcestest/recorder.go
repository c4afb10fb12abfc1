package resourcestest

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/shell/shelltest"
)

// Recorder is a transport that runs nothing: every command and upload is
// recorded and succeeds with no output. The quoting audits run the kinds
// and hooks over it and parse what would have reached the hosts.
type Recorder struct {
	mu      sync.Mutex
	runs    []RecordedRun
	uploads []RecordedUpload
	// Answer, when set before the first command, is the host's side of each
	// command: what it prints and how it fails. Nil: every command prints
	// nothing and succeeds.
	Answer func(host, cmd, stdin string) (stdout string, err error)
}

// RecordedRun is one command: its line, and the script it was fed on
// stdin (RunScript's `sh -s`).
type RecordedRun struct {
	Host, Cmd, Stdin string
}

// RecordedUpload is one file sent to a host.
type RecordedUpload struct {
	Host, Dst string
	Content   string
	Mode      fs.FileMode
}

// NewRecorder registers a transport of type typ whose every connection
// records into the recorder returned. typ must be unique per test binary.
func NewRecorder(typ string) *Recorder {
	r := &Recorder{}
	providers.Register(typ, func(_ context.Context, t providers.Target) (providers.Conn, error) {
		return &recorderConn{r: r, host: t.Name}, nil
	})
	return r
}

// Conn is a connection that records into r as host.
func (r *Recorder) Conn(host string) providers.Conn { return &recorderConn{r: r, host: host} }

// Runs are the commands recorded so far.
func (r *Recorder) Runs() []RecordedRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RecordedRun(nil), r.runs...)
}

// Uploads are the files recorded so far.
func (r *Recorder) Uploads() []RecordedUpload {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RecordedUpload(nil), r.uploads...)
}

type recorderConn struct {
	r    *Recorder
	host string
}

func (c *recorderConn) Run(_ context.Context, cmd providers.Command) error {
	run := RecordedRun{Host: c.host, Cmd: cmd.Cmd}
	if cmd.Stdin != nil {
		b, err := io.ReadAll(cmd.Stdin)
		if err != nil {
			return err
		}
		run.Stdin = string(b)
	}
	c.r.mu.Lock()
	c.r.runs = append(c.r.runs, run)
	c.r.mu.Unlock()
	if c.r.Answer == nil {
		return nil
	}
	out, err := c.r.Answer(c.host, run.Cmd, run.Stdin)
	if cmd.Stdout != nil {
		if _, werr := io.WriteString(cmd.Stdout, out); werr != nil {
			return werr
		}
	}
	return err
}

func (c *recorderConn) Upload(_ context.Context, r io.Reader, _ int64, dst string, mode fs.FileMode, _ string) error {
	var b strings.Builder
	if _, err := io.Copy(&b, r); err != nil {
		return err
	}
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	c.r.uploads = append(c.r.uploads, RecordedUpload{Host: c.host, Dst: dst, Content: b.String(), Mode: mode})
	return nil
}

func (c *recorderConn) Close() error { return nil }

// AuditQuoting checks, with a real shell parser (shelltest.Check), every
// shell text recorded: each command line, the script fed to `sh -s`, and
// each upload isShell says a shell will read. It fails t for each hostile
// value (tag → value) that is not one literal word wherever it appears,
// and returns how often each value was seen intact.
func (r *Recorder) AuditQuoting(t testing.TB, values map[string]string, isShell func(RecordedUpload) bool) map[string]int {
	t.Helper()
	found := map[string]int{}
	seen := map[string]bool{} // the same command on many hosts fails once
	audit := func(where, script string) {
		for _, p := range shelltest.Check(script, values, found) {
			if !seen[p] {
				seen[p] = true
				t.Errorf("%s: %s", where, p)
			}
		}
	}
	for i, run := range r.Runs() {
		audit(fmt.Sprintf("command %d on %s", i, short(run.Host)), run.Cmd)
		if run.Cmd == "sh -s" {
			audit(fmt.Sprintf("script %d on %s", i, short(run.Host)), run.Stdin)
		}
	}
	for _, u := range r.Uploads() {
		if isShell != nil && isShell(u) {
			audit("file "+short(u.Dst)+" on "+short(u.Host), u.Content)
		}
	}
	return found
}

// short keeps a message readable when a name is a hostile value.
func short(s string) string {
	if len(s) > 24 {
		return strconv.Quote(s[:24] + "…")
	}
	return strconv.Quote(s)
}
