package local

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
	"strings"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/shell"
)

// Upload writes r to a temporary file beside dst, checks its sha256,
// chmods it and renames it over dst; on failure the temporary file is
// removed. Without root, when the target asks for sudo, the same steps run
// under sudo -n.
func (c *Conn) Upload(ctx context.Context, r io.Reader, size int64, dst string, mode fs.FileMode, wantSHA256 string) error {
	want := strings.ToLower(wantSHA256)
	if b, err := hex.DecodeString(want); err != nil || len(b) != sha256.Size {
		return fmt.Errorf("%s: upload to %s: %q is not a hex sha256 digest", c.name, dst, wantSHA256)
	}
	if c.sudo {
		return c.uploadWithSudo(ctx, r, dst, mode, want)
	}
	f, err := os.OpenFile(providers.TempName(dst), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("%s: upload to %s: %w", c.name, dst, err)
	}
	tmp := f.Name()
	installed := false
	defer func() {
		if !installed {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), &ctxReader{ctx: ctx, r: r})
	if err != nil {
		return fmt.Errorf("%s: upload to %s failed after %d of %d bytes: %w", c.name, dst, n, size, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%s: upload to %s: sync: %w", c.name, dst, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: upload to %s: %w", c.name, dst, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s: upload to %s: checksum mismatch: expected sha256 %s, wrote %s (%d bytes); the file was not installed", c.name, dst, want, got, n)
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return fmt.Errorf("%s: upload to %s: %w", c.name, dst, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("%s: upload to %s: %w", c.name, dst, err)
	}
	installed = true
	return nil
}

// uploadWithSudo writes the temporary file with cat under sudo, then runs
// providers' finishing script: the same check and install as Upload does
// without sudo.
func (c *Conn) uploadWithSudo(ctx context.Context, r io.Reader, dst string, mode fs.FileMode, want string) error {
	tmp := providers.TempName(dst)
	if err := c.Run(ctx, providers.Command{Cmd: "cat > " + shell.Quote(tmp), Stdin: r}); err != nil {
		_ = c.Run(context.Background(), providers.Command{Cmd: "rm -f -- " + shell.Quote(tmp)})
		return fmt.Errorf("%s: upload to %s: %w", c.name, dst, err)
	}
	var out bytes.Buffer
	err := c.Run(ctx, providers.Command{Cmd: providers.UploadFinishCommand(tmp, dst, want, mode), Stdout: &out})
	var exit *providers.ExitError
	if errors.As(err, &exit) && exit.Code == providers.UploadExitMismatch {
		return fmt.Errorf("%s: upload to %s: checksum mismatch: expected sha256 %s, wrote %s; the file was not installed", c.name, dst, want, strings.TrimSpace(out.String()))
	}
	if err != nil {
		_ = c.Run(context.Background(), providers.Command{Cmd: "rm -f -- " + shell.Quote(tmp)})
		return fmt.Errorf("%s: upload to %s: %w", c.name, dst, err)
	}
	return nil
}

// ctxReader stops a copy when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
