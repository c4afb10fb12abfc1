// Command ociarchive packs files into a one-layer OCI image archive that
// `ctr images import` takes (see package ociimage). The bundle build uses it for
// the pause image:
//
//	ociarchive -name registry.k8s.io/pause:3.10 -entrypoint /pause -user 65535:65535 \
//	    -o pause.tar ./pause=/pause
//
// Each argument is SOURCE=PATH_IN_IMAGE; the file keeps its permission bits.
// The archive is written to a temporary file and renamed, so -o never names a
// half-written archive.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/eggo-project/eggo/internal/bundle/ociimage"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ociarchive:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("ociarchive", flag.ContinueOnError)
	name := fs.String("name", "", "image reference, e.g. registry.k8s.io/pause:3.10")
	out := fs.String("o", "", "archive to write")
	entrypoint := fs.String("entrypoint", "", "entrypoint, words separated by spaces")
	user := fs.String("user", "", "numeric uid:gid the image runs as")
	arch := fs.String("arch", "amd64", "image architecture")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *name == "" || *out == "" || fs.NArg() == 0 {
		return fmt.Errorf("usage: ociarchive -name REF -o FILE [-entrypoint CMD] [-user UID:GID] SOURCE=PATH...")
	}
	img := ociimage.Image{Name: *name, Arch: *arch, User: *user, Entrypoint: strings.Fields(*entrypoint)}
	for _, arg := range fs.Args() {
		src, dest, ok := strings.Cut(arg, "=")
		if !ok {
			return fmt.Errorf("argument %q: want SOURCE=PATH_IN_IMAGE", arg)
		}
		st, err := os.Stat(src)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		img.Files = append(img.Files, ociimage.File{Path: dest, Mode: int64(st.Mode().Perm()), Content: data})
	}
	var buf bytes.Buffer
	if err := ociimage.Write(&buf, img); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".ociarchive-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", *out, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", *out, err)
	}
	return os.Rename(tmp.Name(), *out)
}
