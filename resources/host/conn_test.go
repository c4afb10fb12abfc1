package host

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"

	"github.com/eggo-project/eggo/providers"
)

// hosttest is a test double of a transport: it runs commands with sh -c on
// this machine and uploads the way the contract says (temp file beside
// dst, sha256 checked, chmod, rename). Tests point every path into temp
// directories. An address of "unreachable" fails to dial.
const hostTestType = "hosttest"

var hostTestRuns atomic.Int64 // commands run, so tests can count round trips

func init() {
	providers.Register(hostTestType, func(_ context.Context, t providers.Target) (providers.Conn, error) {
		if t.Address == "unreachable" {
			return nil, fmt.Errorf("%s: dial %s: connection refused", t.Name, t.Address)
		}
		return &shConn{host: t.Name}, nil
	})
}

type shConn struct{ host string }

func (c *shConn) Run(ctx context.Context, cmd providers.Command) error {
	hostTestRuns.Add(1)
	x := exec.CommandContext(ctx, "sh", "-c", cmd.Cmd)
	x.Stdin, x.Stdout = cmd.Stdin, cmd.Stdout
	var stderr bytes.Buffer
	x.Stderr = &stderr
	if cmd.Stderr != nil {
		x.Stderr = io.MultiWriter(&stderr, cmd.Stderr)
	}
	err := x.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &providers.ExitError{Host: c.host, Cmd: cmd.Cmd, Code: ee.ExitCode(), Stderr: stderr.String()}
	}
	return err
}

func (c *shConn) Upload(_ context.Context, r io.Reader, _ int64, dst string, mode fs.FileMode, want string) error {
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".eggo-upload-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), r); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s: %s: sha256 on the far side is %s, want %s", c.host, dst, got, want)
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

func (c *shConn) Close() error { return nil }
