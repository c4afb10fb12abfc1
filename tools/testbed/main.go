// Command testbed brings eggo's test hosts up and down from a shell:
//
//	testbed up -n 3 [-id demo] [-subnet 10.77.0.0/24] [-networks 2 [-network-of m1=1]] [-containers] [-inventory FILE]
//	testbed down [-id ID | -root DIR | -all]
//	testbed cut|restore|stop|start [-id ID] NAME
//	testbed list
//
// Nodes keep running after the command exits; `down` takes them away.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/eggo-project/eggo/internal/harness/nspawntest"
)

func main() { os.Exit(realMain(os.Args[1:])) }

const usage = `usage: testbed <command> [flags]

  up -n N [-names a,b] [-id ID] [-subnet CIDR] [-networks N [-network-of a=1,b=0]]
     [-containers] [-inventory FILE]
  down [-id ID | -root DIR | -all]
  cut|restore|stop|start [-id ID] NAME
  list
`

func realMain(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch args[0] {
	case "up":
		err = up(ctx, args[1:])
	case "down":
		err = down(args[1:])
	case "cut", "restore", "stop", "start":
		err = node(ctx, args[0], args[1:])
	case "list":
		err = list()
	case "-h", "-help", "--help", "help":
		fmt.Print(usage)
		return 0
	default:
		fmt.Fprintf(os.Stderr, "testbed: unknown command %q\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "testbed %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

func up(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("up", flag.ContinueOnError)
	n := fs.Int("n", 1, "number of nodes (m0, m1, …)")
	names := fs.String("names", "", "comma-separated node names instead of -n")
	id := fs.String("id", "", "testbed id (1-8 of [a-z0-9]); random when empty")
	subnet := fs.String("subnet", "", "IPv4 /24; first free 10.77.X.0/24 when empty")
	networks := fs.Int("networks", 1, "networks (bridges and subnets, joined by a router namespace) to spread the nodes over")
	networkOf := fs.String("network-of", "", "comma-separated NAME=NETWORK (0-based); unnamed nodes on 0 (default: node i on i % networks)")
	containers := fs.Bool("containers", false, "boot nodes able to run containerd/runc (kubelet)")
	inventory := fs.String("inventory", "", "write the hosts as JSON here (and FILE.eggovars beside it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	o := nspawntest.Options{N: *n, ID: *id, Subnet: *subnet, Networks: *networks, Containers: *containers,
		Log: func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }}
	if *names != "" {
		o.Names = strings.Split(*names, ",")
	}
	var err error
	if o.NetworkOf, err = parseNetworkOf(*networkOf); err != nil {
		return err
	}
	start := time.Now()
	tb, err := nspawntest.Up(ctx, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "testbed %s up in %s (dir %s)\n", tb.ID, time.Since(start).Round(10*time.Millisecond), tb.Dir)
	if nets := tb.Networks(); len(nets) > 1 {
		for i, nw := range nets {
			fmt.Fprintf(os.Stderr, "network %d: %s on %s (this machine %s, router %s)\n", i, nw.Subnet, nw.Bridge, nw.Gateway, nw.Router)
		}
	}
	printHosts(tb)
	if *inventory != "" {
		hcl, err := tb.WriteInventory(*inventory)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "inventory: %s, %s\n", *inventory, hcl)
	}
	return nil
}

// parseNetworkOf reads -network-of: "a=1,b=0"; nil when empty.
func parseNetworkOf(s string) (map[string]int, error) {
	if s == "" {
		return nil, nil
	}
	out := map[string]int{}
	for _, kv := range strings.Split(s, ",") {
		name, num, ok := strings.Cut(kv, "=")
		i, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("-network-of: %q is not NAME=NETWORK", kv)
		}
		out[name] = i
	}
	return out, nil
}

func printHosts(tb *nspawntest.Testbed) {
	for _, h := range tb.Hosts {
		state := "stopped"
		if ok, _ := tb.Running(h.Name); ok {
			state = "running"
		}
		fmt.Printf("%s\t%s\t%s\t%s@%s -p %d -i %s -o UserKnownHostsFile=%s\n",
			tb.ID, h.Name, state, h.User, h.Address, h.Port, h.KeyFile, h.KnownHostsFile)
	}
}

func down(args []string) error {
	fs := flag.NewFlagSet("down", flag.ContinueOnError)
	id := fs.String("id", "", "testbed to take down")
	all := fs.Bool("all", false, "take down every testbed on this machine, also ones left by crashed runs")
	root := fs.String("root", "", "take down every testbed under this run root (what one run made, e.g. make test's EGGO_TESTBED_RUN), also ones left by crashed processes, and remove the root")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *all:
		return nspawntest.DownAll()
	case *root != "":
		if err := nspawntest.DownAllIn(*root); err != nil {
			return err
		}
		if err := os.Remove(*root); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("run root %s: %w", *root, err)
		}
		return nil
	}
	tb, err := pick(*id)
	if err != nil {
		return err
	}
	return tb.Down()
}

func node(ctx context.Context, verb string, args []string) error {
	fs := flag.NewFlagSet(verb, flag.ContinueOnError)
	id := fs.String("id", "", "testbed id; may be left out when only one exists")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want exactly one node name")
	}
	tb, err := pick(*id)
	if err != nil {
		return err
	}
	name := fs.Arg(0)
	switch verb {
	case "cut":
		return tb.Cut(name)
	case "restore":
		return tb.Restore(name)
	case "stop":
		return tb.Stop(name)
	default:
		return tb.Start(ctx, name)
	}
}

func list() error {
	tbs, err := nspawntest.List("")
	if err != nil {
		return err
	}
	for _, tb := range tbs {
		printHosts(tb)
	}
	return nil
}

// pick opens the testbed named by id, or the only one there is.
func pick(id string) (*nspawntest.Testbed, error) {
	if id != "" {
		return nspawntest.Open("", id)
	}
	tbs, err := nspawntest.List("")
	if err != nil {
		return nil, err
	}
	switch len(tbs) {
	case 0:
		return nil, errors.New("no testbed is up")
	case 1:
		return tbs[0], nil
	default:
		ids := make([]string, len(tbs))
		for i, tb := range tbs {
			ids[i] = tb.ID
		}
		return nil, fmt.Errorf("several testbeds are up (%s): say which with -id", strings.Join(ids, ", "))
	}
}
