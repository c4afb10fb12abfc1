package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadEnvironment(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bootstrap.env")
	if err := os.WriteFile(file, []byte("# how m0 starts\nETCD_TEST_CLUSTER=m0=https://10.0.0.1:2380,m1=https://10.0.0.2:2380\n\nETCD_TEST_STATE=new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := loadEnvironment(file); err != nil {
		t.Fatal(err)
	}
	if got := os.Getenv("ETCD_TEST_CLUSTER"); got != "m0=https://10.0.0.1:2380,m1=https://10.0.0.2:2380" {
		t.Errorf("ETCD_TEST_CLUSTER = %q", got)
	}
	if got := os.Getenv("ETCD_TEST_STATE"); got != "new" {
		t.Errorf("ETCD_TEST_STATE = %q", got)
	}
	if err := loadEnvironment(filepath.Join(dir, "absent")); err != nil {
		t.Errorf("a missing file: %v, want none (a started member has no bootstrap)", err)
	}
	if err := os.WriteFile(file, []byte("ETCD_OK=1\nno equals sign\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := loadEnvironment(file); err == nil || !strings.Contains(err.Error(), "bootstrap.env:2") {
		t.Errorf("a bad line: %v, want an error naming the file and line", err)
	}
}
