// Package local is eggo's transport for the machine eggo runs on: commands
// run with sh -c in their own process group (killed whole when their
// context ends), and uploads are written beside their destination, checked
// by sha256 and renamed into place.
package local

import (
	"context"
	"os"

	"github.com/eggo-project/eggo/providers"
)

func init() { providers.Register("local", Dial) }

// Conn runs work on this machine. It holds no resources; Close is a no-op.
type Conn struct {
	name string
	sudo bool
}

var _ providers.Conn = (*Conn)(nil)

// Dial returns a Conn for t. Sudo is honoured only when eggo is not
// already root.
func Dial(_ context.Context, t providers.Target) (providers.Conn, error) {
	name := t.Name
	if name == "" {
		name = "local"
	}
	return &Conn{name: name, sudo: t.Sudo && os.Geteuid() != 0}, nil
}

// Close does nothing: there is no connection to end.
func (c *Conn) Close() error { return nil }
