package ssh

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync/atomic"
	"time"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/shell"
)

// Upload streams r into a temporary file beside dst (cat on the far side,
// never buffering the file here), verifies it with sha256sum there, then
// chmods it and renames it over dst; on failure the temporary file is
// removed, so dst is either the old file or the complete new one.
func (c *Conn) Upload(ctx context.Context, r io.Reader, size int64, dst string, mode fs.FileMode, wantSHA256 string) error {
	want := strings.ToLower(wantSHA256)
	if !isSHA256(want) {
		return fmt.Errorf("%s: upload to %s: %q is not a hex sha256 digest", c.target.Name, dst, wantSHA256)
	}
	tmp := providers.TempName(dst)
	sudo := c.sudo()
	counted := &countingReader{r: r}
	var stderr bytes.Buffer
	err := c.run(ctx, providers.Command{Cmd: "cat > " + shell.Quote(tmp), Stdin: counted, Stderr: &stderr}, sudo)
	if err != nil {
		c.removeTemp(tmp, sudo)
		return fmt.Errorf("%s: upload to %s failed after %d of %d bytes: %w%s", c.target.Name, dst, counted.n.Load(), size, err, detail(&stderr))
	}

	var stdout bytes.Buffer
	stderr.Reset()
	err = c.run(ctx, providers.Command{Cmd: providers.UploadFinishCommand(tmp, dst, want, mode), Stdout: &stdout, Stderr: &stderr}, sudo)
	var exit *providers.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exit) && exit.Code == providers.UploadExitMismatch:
		return fmt.Errorf("%s: upload to %s: checksum mismatch: expected sha256 %s, the host has %s (%d bytes sent); the file was not installed",
			c.target.Name, dst, want, strings.TrimSpace(stdout.String()), counted.n.Load())
	case errors.As(err, &exit) && exit.Code == providers.UploadExitNoChecksum:
		return fmt.Errorf("%s: upload to %s: sha256sum of %s failed%s", c.target.Name, dst, tmp, detail(&stderr))
	case errors.As(err, &exit) && exit.Code == providers.UploadExitInstall:
		return fmt.Errorf("%s: upload to %s: chmod %04o and rename into place failed%s", c.target.Name, dst, providers.UnixMode(mode), detail(&stderr))
	}
	c.removeTemp(tmp, sudo)
	return fmt.Errorf("%s: upload to %s: %w%s", c.target.Name, dst, err, detail(&stderr))
}

// removeTemp removes a temporary upload best-effort, with its own short
// deadline: the caller's context may be what was cancelled.
func (c *Conn) removeTemp(tmp string, sudo bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = c.run(ctx, providers.Command{Cmd: "rm -f -- " + shell.Quote(tmp)}, sudo)
}

func detail(stderr *bytes.Buffer) string {
	s := strings.TrimSpace(stderr.String())
	if s == "" {
		return ""
	}
	if len(s) > stderrTailBytes {
		s = s[len(s)-stderrTailBytes:]
	}
	return ": " + s
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
