// Command conformance deploys a conformance-shaped cluster on the testbed
// with eggo and runs the Kubernetes conformance suite against it
// (make conformance): a load balancer, three masters and two workers;
// ginkgo runs e2e.test's [Conformance] tests in parallel, then the
// [Serial] ones; the JUnit reports, logs, state and kubeconfig stay in the
// results directory, and the summary says "N passed, F failed, S skipped
// of 443" (v1.36.5's count; -version picks the release) with every failure and skip and its reason.
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
	flag.StringVar(&o.Version, "version", "v1.36.5", "the cluster's Kubernetes version: the defaults of -bundle, -tools, -images and -list are its")
	flag.StringVar(&o.Bundle, "bundle", "", "the bundle (make bundle; default "+cache+"/bundle/VERSION)")
	flag.StringVar(&o.Tools, "tools", "", "e2e.test and ginkgo (make conformance-tools; default "+cache+"/conformance/VERSION)")
	flag.StringVar(&o.Images, "images", "", "test image archives (make conformance-images; default "+cache+"/conformance/VERSION/images)")
	flag.StringVar(&o.List, "list", "", "the conformance tests counted (default tools/bundle/conformance/VERSION/conformance-tests.txt)")
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
	// Every input follows -version unless named: a 1.37 cluster tested
	// with 1.36's e2e.test (or counted against its list) would judge the
	// wrong release.
	for p, def := range map[*string]string{
		&o.Bundle: cache + "/bundle/" + o.Version,
		&o.Tools:  cache + "/conformance/" + o.Version,
		&o.Images: cache + "/conformance/" + o.Version + "/images",
		&o.List:   "tools/bundle/conformance/" + o.Version + "/conformance-tests.txt",
	} {
		if *p == "" {
			*p = def
		}
	}
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
