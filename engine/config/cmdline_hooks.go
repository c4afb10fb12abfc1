package config

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hook"
	"github.com/eggo-project/eggo/resources/hookrun"
)

// The hook flags of plan, apply and destroy, named as openEuler eggo names
// them (without dashes).
const (
	FlagPrehook         = "prehook"
	FlagPosthook        = "posthook"
	FlagClusterPrehook  = "cluster-prehook"
	FlagClusterPosthook = "cluster-posthook"
)

// HookFlagNames lists the hook flags in the order their hooks are named.
var HookFlagNames = []string{FlagPrehook, FlagPosthook, FlagClusterPrehook, FlagClusterPosthook}

// HookFlag is one hook given on the command line: Name is the flag without
// dashes ("prehook"), Value what followed it ("hooks/x.sh,worker").
type HookFlag struct{ Name, Value string }

// String is the flag as a user writes it, for messages and Hook.Source.
func (f HookFlag) String() string { return "--" + f.Name + "=" + f.Value }

// HookFlagError is a hook flag that cannot be used, naming the flag.
type HookFlagError struct {
	Flag HookFlag
	Msg  string
}

func (e *HookFlagError) Error() string { return e.Flag.String() + ": " + e.Msg }

// CommandLineHooks turns hook flags into shell hooks for one run, as
// openEuler eggo's flags: --prehook=PATH[,ROLE] and --posthook run on each
// node with ROLE (every node without one); --cluster-prehook=PATH and
// --cluster-posthook run once per operation. They hook every operation the
// command can cause: apply's deploy, join, delete and upgrade, or destroy's
// cleanup. Relative paths start at the working directory, where the user
// typed them. The scripts are read now, so a plan carries what it shows.
// Every bad flag is reported, each as a *HookFlagError (errors.Join).
func CommandLineHooks(flags []HookFlag, destroy bool) ([]hook.Hook, error) {
	var hooks []hook.Hook
	var errs []error
	seq := map[string]int{}
	for _, f := range flags {
		h, err := commandLineHook(f, destroy)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		// Numbered per flag kind in the order given: unique by construction.
		seq[f.Name]++
		h.Name = fmt.Sprintf("cli_%s_%d", strings.ReplaceAll(f.Name, "-", "_"), seq[f.Name])
		hooks = append(hooks, h)
	}
	return hooks, errors.Join(errs...)
}

func commandLineHook(f HookFlag, destroy bool) (hook.Hook, error) {
	fail := func(format string, a ...any) (hook.Hook, error) {
		return hook.Hook{}, &HookFlagError{Flag: f, Msg: fmt.Sprintf(format, a...)}
	}
	var timing hook.Timing
	scope := hook.NodeScope
	switch f.Name {
	case FlagPrehook:
		timing = hook.Pre
	case FlagPosthook:
		timing = hook.Post
	case FlagClusterPrehook:
		timing, scope = hook.Pre, hook.ClusterScope
	case FlagClusterPosthook:
		timing, scope = hook.Post, hook.ClusterScope
	default:
		return fail("not a hook flag; they are --%s", strings.Join(HookFlagNames, ", --"))
	}
	path, roles := f.Value, []string(nil)
	if scope == hook.NodeScope {
		var err error
		if path, roles, err = splitPathRole(f.Value); err != nil {
			return fail("%v", err)
		}
	}
	if path == "" {
		usage := "PATH"
		if scope == hook.NodeScope {
			usage = "PATH[,ROLE]"
		}
		return fail("no script path: write --%s=%s (a script, or a directory of scripts)", f.Name, usage)
	}
	sh, err := loadFlagSource(path)
	if err != nil {
		if scope == hook.ClusterScope && strings.Contains(path, ",") {
			err = fmt.Errorf("%v (a cluster hook takes no ROLE: it runs once per operation, on the first master)", err)
		}
		return fail("%v", err)
	}
	return hook.Hook{
		Source:  f.String(),
		On:      flagEvents(timing, destroy),
		Type:    hook.TypeShell,
		Scope:   scope,
		Roles:   roles,
		Timeout: hookrun.DefaultTimeout,
		Grace:   hookrun.DefaultGrace,
		Shell:   sh,
	}, nil
}

// splitPathRole reads PATH or PATH,ROLE.
func splitPathRole(v string) (string, []string, error) {
	parts := strings.Split(v, ",")
	switch {
	case len(parts) == 1:
		return v, nil, nil
	case len(parts) > 2:
		return "", nil, fmt.Errorf("more than one comma: the value is PATH or PATH,ROLE (one role; repeat the flag for more)")
	}
	role := parts[1]
	if !slices.Contains(resources.Roles, role) {
		return "", nil, fmt.Errorf("unknown role %s: roles are %s (leave ROLE out for every node)", quoted(role), strings.Join(resources.Roles, ", "))
	}
	return parts[0], []string{role}, nil
}

// loadFlagSource reads the scripts the way a hook block's source is read
// (hookrun.LoadSource), with "~/" expanded and relative paths resolved
// against the working directory.
func loadFlagSource(p string) (*hook.Shell, error) {
	abs, err := (&loader{dir: "."}).localPath(p)
	if err != nil {
		return nil, err
	}
	scripts, err := hookrun.LoadSource(abs)
	if errors.Is(err, fs.ErrNotExist) && !strings.Contains(err.Error(), abs+"/") {
		return nil, fmt.Errorf("%s (%s) does not exist; it is a script file or a directory of scripts, relative to the working directory", clipPath(p), clipPath(abs))
	}
	if err != nil {
		return nil, fmt.Errorf("%v; it must be a script file, or a directory whose regular top-level files are the scripts", err)
	}
	return &hook.Shell{Path: abs, Scripts: scripts}, nil
}

// flagEvents are the events of every operation the command can cause.
func flagEvents(t hook.Timing, destroy bool) []hook.Event {
	if destroy {
		return []hook.Event{{Timing: t, Operation: hook.Cleanup}}
	}
	var out []hook.Event
	for _, op := range []hook.Operation{hook.Deploy, hook.Join, hook.Delete, hook.Upgrade} {
		out = append(out, hook.Event{Timing: t, Operation: op})
	}
	return out
}

// AddCommandLineHooks loads the hook flags and appends their hooks to the
// cluster's for this run, each bad flag an "Invalid hook flag" error. They
// are not part of the configuration hash: a saved plan carries its hook
// steps with their scripts.
func AddCommandLineHooks(c *Config, flags []HookFlag, destroy bool) hcl.Diagnostics {
	if len(flags) == 0 || c == nil || c.Cluster == nil {
		return nil
	}
	hooks, err := CommandLineHooks(flags, destroy)
	var diags hcl.Diagnostics
	for _, e := range flattenErrors(err) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid hook flag", Detail: e.Error() + "."})
	}
	capDiagnostics(diags)
	for _, h := range hooks {
		for _, prev := range c.Hooks {
			if prev.Name == h.Name {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid hook flag",
					Detail: fmt.Sprintf("%s: its hook is named %s, and the hook block at %s has that name. Rename the block: names starting with cli_ are taken by command-line hooks.", h.Source, h.Name, prev.Source)})
			}
		}
	}
	if diags.HasErrors() {
		return diags
	}
	c.Hooks = append(c.Hooks, hooks...)
	for _, h := range hooks {
		if !selectsAny(&h, c.Cluster.Nodes) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Hook selects no node",
				Detail: fmt.Sprintf("%s: no node of the cluster has the role %s, so this hook never runs.", h.Source, strings.Join(h.Roles, ", "))})
		}
	}
	return diags
}

// selectsAny says whether a node hook runs on any of nodes (a cluster
// hook always runs).
func selectsAny(h *hook.Hook, nodes []resources.Node) bool {
	if h.Scope == hook.ClusterScope {
		return true
	}
	for i := range nodes {
		if h.Selects(&nodes[i]) {
			return true
		}
	}
	return false
}

func flattenErrors(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
