package hookrun

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/shell"
)

// OutputTailBytes bounds the output an Attempt keeps: the last 16 KiB of
// its scripts' stdout and stderr, interleaved as they were written.
const OutputTailBytes = 16 << 10

// Attempt is one run of a hook's scripts on the host.
type Attempt struct {
	N             int // 1-based
	Start, Finish time.Time
	// ExitCode is the exit status of the script that ended the attempt
	// (the last one when all succeeded); -1 when a signal ended it or no
	// script ran.
	ExitCode int
	// Signal is what the watchdog sent the script's process group, if
	// anything: "TERM" at the time limit, "KILL" after the grace period.
	Signal   string
	TimedOut bool
	Output   string // bounded tail, see OutputTailBytes
	Script   string // the script that failed (or the last one run)
	// Err says what failed: a script (exit status or time limit), copying
	// files, or the transport. Nil when every script exited 0 in time.
	Err error
}

// runner runs the attempts of one Spec on one host.
type runner struct {
	conn providers.Conn
	host string
	spec Spec
}

func (r *runner) attempt(ctx context.Context, n int) (a Attempt) {
	a = Attempt{N: n, Start: time.Now(), ExitCode: -1}
	defer func() { a.Finish = time.Now() }()
	if err := copyFiles(ctx, r.conn, r.spec.Files); err != nil {
		a.Err = err
		return a
	}
	dir, err := r.makeDir(ctx)
	if err != nil {
		a.Err = err
		return a
	}
	finished := false
	defer func() {
		if !finished {
			r.removeDir(dir)
		}
	}()
	if err := r.upload(ctx, dir, n); err != nil {
		a.Err = err
		return a
	}

	// A safety net under the host's watchdog: were it to fail, the run
	// still ends (cancelling kills the controller; the scripts' groups are
	// the watchdog's, so this is a last resort, not the time limit).
	perScript := r.spec.Timeout + r.spec.Grace + 10*time.Second
	runCtx, cancel := context.WithTimeout(ctx, time.Duration(len(r.spec.Scripts))*perScript+30*time.Second)
	defer cancel()
	status := &lockedBuffer{}
	output := &providers.TailBuffer{Max: OutputTailBytes}
	cmd := controllerCommand(dir, r.spec.Timeout, r.spec.Grace)
	runErr := r.conn.Run(runCtx, providers.Command{Cmd: cmd, Stdout: status, Stderr: output, Mutates: true})
	a.Output = output.String()

	st, ok := lastStatus(status.String())
	if !ok || st.index >= len(r.spec.Scripts) {
		a.Err = transportError(runErr, cmd, "the hook ended before its first script reported")
		return a
	}
	a.Script = r.spec.Scripts[st.index].Name
	a.ExitCode, a.Signal, a.TimedOut = st.code, st.signal, st.signal != ""
	if st.code == 128+signalNumber(st.signal) {
		a.ExitCode = -1 // ended by the signal the watchdog sent
	}
	switch {
	case a.Signal == "KILL":
		a.Err = fmt.Errorf("script %s timed out after %s and was killed (SIGKILL) %s after SIGTERM", a.Script, r.spec.Timeout, r.spec.Grace)
	case a.Signal == "TERM":
		a.Err = fmt.Errorf("script %s timed out after %s and was stopped by SIGTERM", a.Script, r.spec.Timeout)
		if a.ExitCode != -1 {
			a.Err = fmt.Errorf("%w (it trapped the signal and exited %d)", a.Err, a.ExitCode)
		}
	case st.code != 0:
		a.Err = fmt.Errorf("script %s exited %d", a.Script, st.code)
	case st.index != len(r.spec.Scripts)-1 || runErr != nil:
		a.Err = transportError(runErr, cmd, fmt.Sprintf("the hook ended after script %s", a.Script))
		return a
	}
	finished = true // the controller removed the directory itself
	return a
}

// makeDir creates the private directory the scripts live in while they
// run. Its name is chosen here, not by mktemp on the host: a run cancelled
// while the directory is being made still knows what to remove (with
// mktemp, a cancelled command could create the directory and never say its
// name, leaving it behind). mkdir fails on a name that exists, so a
// collision is tried again, never shared.
func (r *runner) makeDir(ctx context.Context) (string, error) {
	base := strings.TrimSuffix(r.spec.TempDir, "/") + "/eggo-hook."
	var err error
	for range 3 {
		dir := base + randomName()
		err = r.conn.Run(ctx, providers.Command{Cmd: "mkdir -m 0700 -- " + shell.Quote(dir), Mutates: true})
		if err == nil {
			return dir, nil
		}
		if ctx.Err() != nil {
			r.removeDir(dir) // the mkdir may have run before the cancel reached it
			break
		}
	}
	return "", fmt.Errorf("create a temporary directory in %s: %w", r.spec.TempDir, err)
}

// randomName is eight random letters and digits, as mktemp's XXXXXXXX.
func randomName() string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	return string(b[:])
}

// upload sends the plan and the scripts, each checked by sha256 on the host.
func (r *runner) upload(ctx context.Context, dir string, n int) error {
	env := make(map[string]string, len(r.spec.Env)+2)
	for k, v := range r.spec.Env {
		env[k] = v
	}
	env["EGGO_HOOK_NAME"] = r.spec.Hook
	env["EGGO_HOOK_ATTEMPT"] = strconv.Itoa(n)
	plan := []byte(planFile(env, r.spec.Scripts, r.spec.Args))
	if err := r.put(ctx, plan, dir+"/plan"); err != nil {
		return fmt.Errorf("upload the hook's plan: %w", err)
	}
	for i, s := range r.spec.Scripts {
		if err := r.put(ctx, s.Content, dir+"/"+strconv.Itoa(i)); err != nil {
			return fmt.Errorf("upload script %s: %w", s.Name, err)
		}
	}
	return nil
}

func (r *runner) put(ctx context.Context, b []byte, dst string) error {
	return r.conn.Upload(ctx, bytes.NewReader(b), int64(len(b)), dst, 0o600, bytesSHA256(b))
}

// removeDir removes the scripts' directory when the controller could not,
// with its own deadline: the caller's context may be what ended the run.
func (r *runner) removeDir(dir string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = r.conn.Run(ctx, providers.Command{Cmd: "rm -rf -- " + shell.Quote(dir), Mutates: true})
}

// lockedBuffer is the controller's stdout: a cancelled Run may return
// while the transport still copies into it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type scriptStatus struct {
	index, code int
	signal      string
}

// lastStatus reads the controller's last status line.
func lastStatus(out string) (scriptStatus, bool) {
	var last scriptStatus
	found := false
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != statusMarker {
			continue
		}
		i, err1 := strconv.Atoi(f[1])
		c, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil {
			continue
		}
		last, found = scriptStatus{index: i, code: c}, true
		if len(f) > 3 {
			last.signal = f[3]
		}
	}
	return last, found
}

func signalNumber(s string) int {
	switch s {
	case "TERM":
		return 15
	case "KILL":
		return 9
	}
	return -1000
}

// transportError explains a run that ended without a script's verdict,
// with the controller's long command line left out of the message.
func transportError(err error, cmd, what string) error {
	if err == nil {
		return errors.New(what)
	}
	var exit *providers.ExitError
	if errors.As(err, &exit) {
		return fmt.Errorf("%s: the hook runner exited %d", what, exit.Code)
	}
	msg := strings.ReplaceAll(err.Error(), strconv.Quote(cmd), "(hook runner)")
	return &cleanError{msg: what + ": " + msg, err: err}
}

type cleanError struct {
	msg string
	err error
}

func (e *cleanError) Error() string { return e.msg }
func (e *cleanError) Unwrap() error { return e.err }
