// Command benchscale measures `eggo plan -refresh=false` from the binary on
// generated clusters (make bench-scale), and writes those clusters: a
// directory holding an HCL cluster of three masters and N workers (an
// inventory in CSV, as an operator of a large cluster keeps one), a
// stand-in package bundle (every file a complete bundle holds, a few bytes
// each) and the state an apply of it would leave, so that `eggo plan
// -refresh=false` there says "No changes.".
//
//	go run ./tools/benchscale -eggo bin/eggo [-sizes 1000,5000,10000] [-root DIR]
//	go run ./tools/benchscale -gen DIR -nodes 1000 [-join 1]
//
// -gen writes one cluster; -join adds workers to its HCL after the state
// is made, so that the plan there joins them to the recorded cluster.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/resources/kinds"
	"github.com/eggo-project/eggo/state"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "benchscale:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("benchscale", flag.ContinueOnError)
	gen := fs.String("gen", "", "write one cluster into this directory and stop")
	nodes := fs.Int("nodes", 1000, "with -gen: nodes, three of them masters")
	join := fs.Int("join", 0, "with -gen: workers added to the HCL after the state is made")
	eggo := fs.String("eggo", "bin/eggo", "the binary measured")
	sizes := fs.String("sizes", "1000,5000,10000", "cluster sizes in nodes, the first the reference of the ratios")
	root := fs.String("root", filepath.Join(os.TempDir(), "eggo-bench-scale"), "where the clusters are written")
	runs := fs.Int("runs", 2, "runs per case; the fastest is reported")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *gen != "" {
		if *nodes < 4 || *join < 0 {
			return fmt.Errorf("-nodes must be at least 4 (three masters), -join not negative")
		}
		_, err := generate(*gen, *nodes, *join, false)
		return err
	}
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 4 {
			return fmt.Errorf("-sizes: %q is not a number of nodes of at least 4", s)
		}
		ns = append(ns, n)
	}
	eggoPath, err := filepath.Abs(*eggo)
	if err != nil {
		return err
	}
	return bench(eggoPath, *root, ns, *runs)
}

// generate writes a cluster of nodes nodes (three masters) into dir, with
// the state of everything created, then join more workers in the HCL
// only. It returns the number of resources in the state. sealed adds a
// secrets block (an age identity in dir/identity.txt) and writes the
// state with its secrets sealed, as a user with a secrets block has it.
func generate(dir string, nodes, join int, sealed bool) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	statePath := filepath.Join(dir, "eggo.state")
	for _, p := range []string{statePath, statePath + ".backup"} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return 0, err
		}
	}
	if err := writeBundle(dir); err != nil {
		return 0, err
	}
	keyring, err := writeIdentity(dir, sealed)
	if err != nil {
		return 0, err
	}
	if err := writeCluster(dir, nodes-3); err != nil {
		return 0, err
	}
	st, err := fullState(context.Background(), engine.Request{Dir: dir, StatePath: statePath, Kinds: kinds.All()})
	if err != nil {
		return 0, err
	}
	store := state.NewStore(statePath)
	store.SetKeyring(keyring)
	if err := store.Write(st); err != nil {
		return 0, err
	}
	if join > 0 {
		return len(st.Resources), writeCluster(dir, nodes-3+join)
	}
	return len(st.Resources), nil
}
