package hookrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/providers/shell"
)

// copyFiles copies each FileCopy to the host: parent directories created,
// the file streamed and verified by sha256 there, with the source's
// permission bits.
func copyFiles(ctx context.Context, conn providers.Conn, files []FileCopy) error {
	for _, f := range files {
		if err := copyFile(ctx, conn, f); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(ctx context.Context, conn providers.Conn, f FileCopy) error {
	fi, err := regularFile(f.Src)
	if err != nil {
		return err
	}
	sum, err := fileSHA256(f.Src)
	if err != nil {
		return err
	}
	mkdir := "mkdir -p -- " + shell.Quote(path.Dir(f.Dst))
	if err := conn.Run(ctx, providers.Command{Cmd: mkdir, Mutates: true}); err != nil {
		return fmt.Errorf("copy %s to %s: create its directory: %w", f.Src, f.Dst, err)
	}
	r, err := os.Open(f.Src)
	if err != nil {
		return fmt.Errorf("hook file %s: %w", f.Src, err)
	}
	defer r.Close()
	if err := conn.Upload(ctx, r, fi.Size(), f.Dst, fi.Mode().Perm(), sum); err != nil {
		return fmt.Errorf("copy %s to %s: %w", f.Src, f.Dst, err)
	}
	return nil
}

func fileSHA256(p string) (string, error) {
	r, err := os.Open(p)
	if err != nil {
		return "", fmt.Errorf("hook file %s: %w", p, err)
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", fmt.Errorf("hook file %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func bytesSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
