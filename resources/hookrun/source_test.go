package hookrun

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestLoadSource(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "one.sh")
	writeFile(t, file, "echo one\n", 0o644)
	got, err := LoadSource(file)
	if err != nil || len(got) != 1 || got[0].Name != "one.sh" || string(got[0].Content) != "echo one\n" {
		t.Fatalf("file: %+v %v", got, err)
	}

	hooks := filepath.Join(dir, "hooks")
	if err := os.Mkdir(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(file, filepath.Join(hooks, "b-link")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(hooks, "a"), "echo a\n", 0o644)
	got, err = LoadSource(hooks)
	if err != nil || len(got) != 2 || got[0].Name != "a" || got[1].Name != "b-link" || string(got[1].Content) != "echo one\n" {
		t.Fatalf("directory with a symlink: %+v %v", got, err)
	}

	for name, setup := range map[string]func(string) error{
		"dangling": func(p string) error { return os.Symlink(filepath.Join(dir, "nowhere"), p) },
		"fifo":     func(p string) error { return syscall.Mkfifo(p, 0o644) },
	} {
		bad := filepath.Join(dir, "bad-"+name)
		if err := os.Mkdir(bad, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(bad, "x")
		if err := setup(p); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadSource(bad); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v does not name %s", name, err, p)
		}
	}

	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(filepath.Join(empty, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSource(empty); err == nil || !strings.Contains(err.Error(), empty+": the directory holds no scripts") {
		t.Errorf("empty: %v", err)
	}
	missing := filepath.Join(dir, "missing")
	if _, err := LoadSource(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing: %v", err)
	}
}

func TestInterpreter(t *testing.T) {
	for content, want := range map[string]string{
		"echo hi\n":                 "sh",
		"#!/bin/bash\necho\n":       "/bin/bash",
		"#!/bin/sh -e\r\n":          "/bin/sh|-e",
		"#! /usr/bin/env  python3 ": "/usr/bin/env|python3",
		"#!\n":                      "sh",
		"":                          "sh",
	} {
		if got := strings.Join(interpreter([]byte(content)), "|"); got != want {
			t.Errorf("interpreter(%q) = %q, want %q", content, got, want)
		}
	}
}
