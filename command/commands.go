// Package command is eggo's command line: one file per command, flag
// parsing, the human and JSON views, and exit codes. It never touches a
// host; it drives engine/ and renders what comes back.
package command

import (
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/cli"

	"github.com/eggo-project/eggo/engine"
)

// cliUnknownCommand is what hashicorp/cli returns for a command it does not
// know (or none at all), after printing the help.
const cliUnknownCommand = 127

// Run runs eggo with args (without the program name) and returns the exit code.
func Run(args []string, s Streams) int {
	tuneGC(s)
	return profiled(s, func() int { return guard(s, func() int { return run(args, s) }) })
}

func run(args []string, s Streams) int {
	args, dir, err := splitChdir(args)
	if err != nil {
		fmt.Fprintf(s.Err, "Error: %v\n", err)
		return 1
	}
	if dir != "" {
		if err := os.Chdir(dir); err != nil {
			fmt.Fprintf(s.Err, "Error: -chdir=%s: %v\n", dir, err)
			return 1
		}
	}
	m := &meta{streams: s, signals: testSignals}
	c := &cli.CLI{
		Name:         "eggo",
		Version:      engine.Version,
		Args:         args,
		Commands:     commands(m),
		HelpFunc:     helpFunc,
		HelpWriter:   s.Out,
		ErrorWriter:  s.Err,
		Autocomplete: false,
	}
	code, err := c.Run()
	if err != nil {
		fmt.Fprintf(s.Err, "Error: %v\n", err)
		return 1
	}
	if code == cliUnknownCommand {
		// The CLI library has printed the help; eggo's exit codes are 0, 1
		// and (plan -detailed-exitcode) 2, so a script can rely on them.
		if len(args) > 0 {
			fmt.Fprintf(s.Err, "\nError: %q is not an eggo command.\n", args[0])
		}
		return 1
	}
	return code
}

func commands(m *meta) map[string]cli.CommandFactory {
	f := func(c cli.Command) cli.CommandFactory { return func() (cli.Command, error) { return c, nil } }
	return map[string]cli.CommandFactory{
		"validate":         f(&ValidateCommand{m}),
		"plan":             f(&PlanCommand{m}),
		"apply":            f(&ApplyCommand{meta: m}),
		"destroy":          f(&ApplyCommand{meta: m, destroy: true}),
		"graph":            f(&GraphCommand{m}),
		"show":             f(&ShowCommand{m}),
		"state":            f(&StateCommand{}),
		"state list":       f(&StateListCommand{m}),
		"state show":       f(&StateShowCommand{m}),
		"state rm":         f(&StateRmCommand{m}),
		"state pull":       f(&StatePullCommand{m}),
		"state push":       f(&StatePushCommand{m}),
		"state migrate":    f(&StateMigrateCommand{m}),
		"state rekey-host": f(&StateRekeyHostCommand{m}),
		"hooks":            f(&HooksCommand{m}),
		"hooks show":       f(&HooksShowCommand{m}),
		"force-unlock":     f(&ForceUnlockCommand{m}),
		"version":          f(&VersionCommand{m}),
	}
}

// splitChdir takes a leading -chdir=DIR off the arguments, like Terraform.
func splitChdir(args []string) ([]string, string, error) {
	if len(args) == 0 {
		return args, "", nil
	}
	a := args[0]
	switch {
	case strings.HasPrefix(a, "-chdir=") || strings.HasPrefix(a, "--chdir="):
		dir := a[strings.IndexByte(a, '=')+1:]
		if dir == "" {
			return nil, "", fmt.Errorf("-chdir needs a directory")
		}
		return args[1:], dir, nil
	case a == "-chdir" || a == "--chdir":
		return nil, "", fmt.Errorf("use -chdir=DIR (with '=')")
	}
	return args, "", nil
}

func helpFunc(cmds map[string]cli.CommandFactory) string {
	var b strings.Builder
	b.WriteString(`Usage: eggo [-chdir=DIR] <command> [args]

eggo deploys Kubernetes clusters onto machines reached over SSH. You write
what the cluster should be in HCL; eggo plans exactly what will change and
why, applies it in parallel along the dependency graph, and records what it
did in a state file next to the HCL. That file holds the cluster's private
keys, encrypted field by field to the recipients of a secrets block (without
one they are plain text: keep such a file as private as an admin kubeconfig).

Main commands:
  validate       Check the configuration
  plan           Show what apply would change, and why
  apply          Make the hosts match the configuration
  destroy        Remove everything eggo created, in reverse order

Other commands:
  graph          Print the resource graph in DOT, coloured by planned action
  show           Show the state (or a saved plan)
  state list     List the resources in the state
  state show     Show one resource in the state
  state rm       Forget a resource without touching its host
  state pull     Print the state as its backend (file, etcd or kubernetes) holds it
  state push     Replace the backend's state with a file (stale pushes refused)
  state migrate  Move the state between the file and etcd or Kubernetes
  state rekey-host  Accept a reinstalled host's new SSH host key
  hooks          List the recorded hook runs (hooks show ID: one in full)
  force-unlock   Remove a stale state lock
  version        Print eggo's version

Global options:
  -chdir=DIR     Switch to DIR before running the command.

Exit codes: 0 success, 1 error; plan -detailed-exitcode: 2 means changes.
Every command takes -help. Set EGGO_LOG=debug for logs on stderr.
`)
	return b.String()
}
