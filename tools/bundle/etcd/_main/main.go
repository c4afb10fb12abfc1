// Command etcd is etcd for eggo's bundle: upstream's etcdmain, built from
// etcd's Go modules (the release this directory's go.mod requires) as a
// static binary by ../../scripts/etcd-image.sh, which packs it into the
// image registry.k8s.io/etcd for static-pod etcd (etcd_implementation =
// "pod"), and by ../../scripts/etcd.sh as the hosts' /usr/local/bin/etcd
// for the Kubernetes minors whose row in ../../minors.tsv names the
// release. A module of its own, test-only: eggo's go.mod does not grow.
// Every release's directory links this one main.go and its test (a link
// each: _main is no package of its own, as go ignores a directory named
// with a leading underscore).
//
// One addition to upstream's main: EGGO_ETCD_ENVIRONMENT_FILE names a file
// of KEY=VALUE lines set in the environment before etcd reads it, as
// systemd's EnvironmentFile=- does for the etcd unit. eggo writes there how
// a member first starts (ETCD_INITIAL_CLUSTER, ETCD_INITIAL_CLUSTER_STATE),
// which depends on the members of the moment: the manifest stays the same
// when members come and go, so no member restarts for it. A missing file
// is no error (a member that has started once has its data directory).
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

// environmentFile names the file of variables to set.
const environmentFile = "EGGO_ETCD_ENVIRONMENT_FILE"

func main() {
	if err := loadEnvironment(os.Getenv(environmentFile)); err != nil {
		fmt.Fprintf(os.Stderr, "etcd: %s: %v\n", environmentFile, err)
		os.Exit(2)
	}
	etcdmain.Main(os.Args)
}

// loadEnvironment sets each KEY=VALUE line of file (blank lines and lines
// starting with # skipped) in the environment.
func loadEnvironment(file string) error {
	if file == "" {
		return nil
	}
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok || key == "" {
			return fmt.Errorf("%s:%d: not KEY=VALUE: %q", file, n, line)
		}
		if err := os.Setenv(key, value); err != nil {
			return fmt.Errorf("%s:%d: %v", file, n, err)
		}
	}
	return sc.Err()
}
