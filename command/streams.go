package command

import (
	"bufio"
	"io"
	"os"

	"golang.org/x/term"
)

// Streams are a command's input and output, so tests can drive commands
// with buffers.
type Streams struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	InTTY  bool // stdin is a terminal: we may ask for approval
	OutTTY bool // stdout is a terminal: colour and live progress
	Env    []string
}

// StdStreams are the process's own.
func StdStreams() Streams {
	return Streams{
		In:     bufio.NewReader(os.Stdin),
		Out:    os.Stdout,
		Err:    os.Stderr,
		InTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		Env:    os.Environ(),
	}
}

// color reports whether output may be coloured: a terminal, and NO_COLOR unset.
func (s Streams) color() bool {
	if !s.OutTTY {
		return false
	}
	for _, e := range s.Env {
		if len(e) > len("NO_COLOR=") && e[:len("NO_COLOR=")] == "NO_COLOR=" {
			return false
		}
	}
	return true
}

func (s Streams) getenv(name string) string {
	for _, e := range s.Env {
		if len(e) > len(name) && e[:len(name)] == name && e[len(name)] == '=' {
			return e[len(name)+1:]
		}
	}
	return ""
}
