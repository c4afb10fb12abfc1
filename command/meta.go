package command

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/engine"
)

// meta is what every command shares.
type meta struct {
	streams Streams
	// signals, when set, replaces os/signal (tests send their own).
	signals chan os.Signal
}

func (m *meta) col() colorizer { return colorizer(m.streams.color()) }

// logger logs to stderr at EGGO_LOG's level (off by default).
func (m *meta) logger() hclog.Logger {
	lvl := m.streams.getenv("EGGO_LOG")
	if lvl == "" {
		return hclog.NewNullLogger()
	}
	return hclog.New(&hclog.LoggerOptions{Name: "eggo", Level: hclog.LevelFromString(lvl), Output: m.streams.Err})
}

// errorf reports an error as text on stderr, whatever the format: the
// commands whose errors are never JSON use it.
func (m *meta) errorf(format string, a ...any) {
	m.text().Error(fmt.Sprintf(format, a...))
}

// interrupts returns a context cancelled on the second interrupt and a
// channel closed on the first: stop scheduling, then abandon.
func (m *meta) interrupts() (context.Context, <-chan struct{}, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	stop := make(chan struct{})
	sigs := m.signals
	if sigs == nil {
		sigs = make(chan os.Signal, 2)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	}
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-done:
				return
			case <-sigs:
				n++
				if n == 1 {
					fmt.Fprintln(m.streams.Err, "\nInterrupt received: starting nothing new, waiting for running operations to finish. Press Ctrl-C again to abandon them.")
					close(stop)
				} else {
					fmt.Fprintln(m.streams.Err, "\nSecond interrupt: abandoning running operations. State keeps what finished; run apply again to resume.")
					cancel()
					return
				}
			}
		}
	}()
	return ctx, stop, func() {
		close(done)
		if m.signals == nil {
			signal.Stop(sigs)
		}
		cancel()
	}
}

// ask reads one line of approval.
func (m *meta) ask(prompt string) (string, error) {
	fmt.Fprint(m.streams.Out, prompt)
	var line strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := m.streams.In.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				break
			}
			line.WriteByte(buf[0])
		}
		if err != nil {
			if line.Len() == 0 {
				return "", err
			}
			break
		}
	}
	return strings.TrimSpace(line.String()), nil
}

// testSignals, when set by a test, replaces the process's interrupts.
var testSignals chan os.Signal

// prepare loads the configuration for where the state lives and how its
// secrets are sealed, and sets o.Backend and o.Keyring. Only errors are
// printed: the caller plans with the configuration returned and shows its
// warnings (diags) after the plan, as it always has.
func (m *meta) prepare(o *engine.Options, v View) (*engine.Loaded, hcl.Diagnostics, bool) {
	loaded, diags := engine.LoadConfig(*o)
	if diags.HasErrors() {
		v.Diagnostics(diags, loaded)
		return nil, nil, false
	}
	if err := engine.OpenBackend(o, loaded.Config); err != nil {
		v.Error(err.Error())
		return nil, nil, false
	}
	return loaded, diags, true
}

// closeBackend closes a shared backend (etcd's client; either releases a lock its command left).
func closeBackend(o *engine.Options) {
	if c, ok := o.Backend.(interface{ Close() error }); ok {
		_ = c.Close()
	}
}
