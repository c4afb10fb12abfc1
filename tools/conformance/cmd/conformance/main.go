// Command conformance deploys a conformance-shaped cluster on the testbed
// with eggo and runs the Kubernetes conformance suite against it
// (make conformance): a load balancer, three masters and two workers;
// ginkgo runs e2e.test's [Conformance] tests in parallel, then the
// [Serial] ones; the JUnit reports, logs, state and kubeconfig stay in the
// results directory, and the summary says "N passed, F failed, S skipped
// of 443" (v1.36.5's count) with every failure and skip and its reason.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/eggo-project/eggo/tools/conformance"
)

func main() {
	cache := "/var/cache/eggo"
	var o conformance.Options
	flag.StringVar(&o.Eggo, "eggo", "bin/eggo", "the eggo binary")
	flag.StringVar(&o.Example, "example", "examples/conformance", "the cluster's configuration")
	flag.StringVar(&o.Bundle, "bundle", cache+"/bundle/v1.36.5", "the bundle (make bundle)")
	flag.StringVar(&o.Tools, "tools", cache+"/conformance/v1.36.5", "e2e.test and ginkgo (make conformance-tools)")
	flag.StringVar(&o.Images, "images", cache+"/conformance/v1.36.5/images", "test image archives (make conformance-images)")
	flag.StringVar(&o.List, "list", "tools/bundle/conformance/v1.36.5/conformance-tests.txt", "the conformance tests counted")
	flag.StringVar(&o.Results, "results", "conformance-results", "where reports, logs, state and kubeconfig go")
	flag.IntVar(&o.Workers, "workers", 2, "workers (at least 2)")
	flag.IntVar(&o.Procs, "procs", 4, "ginkgo processes in the parallel phase")
	flag.StringVar(&o.Focus, "focus", "", `the parallel phase's focus (default \[Conformance\]); a smoke run names fewer`)
	flag.BoolVar(&o.Serial, "serial", true, "run the [Serial] [Conformance] tests after the parallel ones")
	flag.BoolVar(&o.Keep, "keep", false, "leave the cluster up (tear it down with make testbed-down)")
	flag.StringVar(&o.Implementation, "implementation", "binary", "the cluster's implementation")
	flag.StringVar(&o.EtcdImplementation, "etcd-implementation", "binary", "the cluster's etcd_implementation")
	flag.Parse()
	o.Log = os.Stdout
	for _, p := range []*string{&o.Eggo, &o.Example, &o.List, &o.Results} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			fail(err)
		}
		*p = abs
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := conformance.Run(ctx, o)
	if err != nil {
		fail(err)
	}
	f, err := os.Create(filepath.Join(o.Results, "summary.txt"))
	if err != nil {
		fail(err)
	}
	s.Print(f)
	f.Close()
	s.Print(os.Stdout)
	if s.Count(conformance.Failed) > 0 {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "conformance:", err)
	os.Exit(2)
}
