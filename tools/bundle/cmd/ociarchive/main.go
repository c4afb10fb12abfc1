// Command ociarchive packs files into a one-layer OCI image archive that
// `ctr images import` takes (see package ociimage). The bundle build uses it for
// the pause image:
//
//	ociarchive -name registry.k8s.io/pause:3.10 -entrypoint /pause -user 65535:65535 \
//	    -o pause.tar ./pause=/pause
//
// Each argument is SOURCE=PATH_IN_IMAGE; the file keeps its permission bits.
// -tree DIR adds everything under DIR at the same path in the image
// (directories with their modes, symlinks as links, hard links as copies):
// the conformance images are Debian packages unpacked into a directory.
// -entrypoint and -cmd are words separated by spaces, or a JSON array when an
// argument has a space ('["nginx", "-g", "daemon off;"]').
// The archive is written to a temporary file and renamed, so -o never names a
// half-written archive.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/eggo-project/eggo/tools/bundle/ociimage"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ociarchive:", err)
		os.Exit(1)
	}
}

// list is a flag that may be given more than once.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func run(args []string) error {
	fs := flag.NewFlagSet("ociarchive", flag.ContinueOnError)
	name := fs.String("name", "", "image reference, e.g. registry.k8s.io/pause:3.10")
	out := fs.String("o", "", "archive to write")
	entrypoint := fs.String("entrypoint", "", "entrypoint: words separated by spaces, or a JSON array")
	cmd := fs.String("cmd", "", "default command or arguments: words separated by spaces, or a JSON array")
	workdir := fs.String("workdir", "", "working directory")
	user := fs.String("user", "", "numeric uid:gid the image runs as")
	arch := fs.String("arch", "amd64", "image architecture")
	var env, trees list
	fs.Var(&env, "env", "KEY=VALUE of the image's environment (repeatable)")
	fs.Var(&trees, "tree", "directory whose whole content goes into the image at / (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *name == "" || *out == "" || fs.NArg()+len(trees) == 0 {
		return fmt.Errorf("usage: ociarchive -name REF -o FILE [-entrypoint CMD] [-cmd CMD] [-env K=V]... [-workdir DIR] [-user UID:GID] [-tree DIR]... [SOURCE=PATH...]")
	}
	img := ociimage.Image{Name: *name, Arch: *arch, User: *user, Env: env, WorkingDir: *workdir}
	var err error
	if img.Entrypoint, err = words(*entrypoint); err != nil {
		return fmt.Errorf("-entrypoint: %w", err)
	}
	if img.Cmd, err = words(*cmd); err != nil {
		return fmt.Errorf("-cmd: %w", err)
	}
	for _, dir := range trees {
		files, err := tree(dir)
		if err != nil {
			return err
		}
		img.Files = append(img.Files, files...)
	}
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

// words splits a command: a JSON array as given, else at spaces.
func words(s string) ([]string, error) {
	if strings.HasPrefix(strings.TrimSpace(s), "[") {
		var w []string
		err := json.Unmarshal([]byte(s), &w)
		return w, err
	}
	return strings.Fields(s), nil
}

// tree lists everything under dir as image files at the same paths.
func tree(dir string) ([]ociimage.File, error) {
	var files []ociimage.File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		// Mode bits with setuid, setgid and sticky as tar has them.
		mode := int64(info.Mode().Perm())
		for bit, v := range map[fs.FileMode]int64{fs.ModeSetuid: 0o4000, fs.ModeSetgid: 0o2000, fs.ModeSticky: 0o1000} {
			if info.Mode()&bit != 0 {
				mode |= v
			}
		}
		f := ociimage.File{Path: "/" + filepath.ToSlash(rel), Mode: mode}
		switch t := info.Mode().Type(); {
		case t == 0:
			if f.Content, err = os.ReadFile(p); err != nil {
				return err
			}
		case t == fs.ModeDir:
			f.Type = ociimage.Dir
		case t == fs.ModeSymlink:
			f.Type = ociimage.Symlink
			if f.Link, err = os.Readlink(p); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: not a file, directory or symlink (%v)", p, t)
		}
		files = append(files, f)
		return nil
	})
	return files, err
}
