package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/eggo-project/eggo/resources/hook"
	"github.com/eggo-project/eggo/resources/hookrun"
)

// cmdlineDir is a working directory holding a script, a directory of
// scripts, an empty directory and a FIFO; the test runs from it.
func cmdlineDir(t *testing.T) string {
	t.Helper()
	dir := writeDir(t, map[string]string{
		"x.sh":         "#!/bin/sh\necho x\n",
		"pre/20-b.sh":  "echo b\n",
		"pre/10-a.sh":  "echo a\n",
		"pre/sub/c.sh": "echo ignored\n",
	})
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return dir
}

func TestCommandLineHooksApply(t *testing.T) {
	dir := cmdlineDir(t)
	hooks, err := CommandLineHooks([]HookFlag{
		{FlagPrehook, "x.sh,worker"},
		{FlagPosthook, "pre"},
		{FlagPrehook, "./pre,master"},
		{FlagClusterPosthook, "x.sh"},
		{FlagClusterPrehook, filepath.Join(dir, "x.sh")},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range hooks {
		names = append(names, h.Name)
	}
	if want := []string{"cli_prehook_1", "cli_posthook_1", "cli_prehook_2", "cli_cluster_posthook_1", "cli_cluster_prehook_1"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("names %v, want %v", names, want)
	}
	applyPre := []hook.Event{ev(hook.Pre, hook.Deploy), ev(hook.Pre, hook.Join),
		ev(hook.Pre, hook.Delete), ev(hook.Pre, hook.Upgrade)}
	want := hook.Hook{
		Name: "cli_prehook_1", Source: "--prehook=x.sh,worker",
		On: applyPre, Type: hook.TypeShell, Scope: hook.NodeScope, Roles: []string{"worker"},
		Timeout: hookrun.DefaultTimeout, Grace: hookrun.DefaultGrace,
		Shell: &hook.Shell{Path: filepath.Join(dir, "x.sh"),
			Scripts: []hookrun.Script{{Name: "x.sh", Content: []byte("#!/bin/sh\necho x\n")}}},
	}
	if !reflect.DeepEqual(hooks[0], want) {
		t.Errorf("prehook =\n%+v\nwant\n%+v", hooks[0], want)
	}
	post := hooks[1]
	if post.Roles != nil || post.Scope != hook.NodeScope {
		t.Errorf("a posthook without ROLE must select every node: roles %v scope %s", post.Roles, post.Scope)
	}
	if post.On[0] != ev(hook.Post, hook.Deploy) || len(post.On) != 4 {
		t.Errorf("posthook events %v", post.On)
	}
	var scripts []string
	for _, s := range post.Shell.Scripts {
		scripts = append(scripts, s.Name)
	}
	if !reflect.DeepEqual(scripts, []string{"10-a.sh", "20-b.sh"}) {
		t.Errorf("directory scripts %v: want lexical order, sub-directory ignored", scripts)
	}
	cl := hooks[3]
	if cl.Scope != hook.ClusterScope || cl.Roles != nil || cl.Policy != "" {
		t.Errorf("cluster posthook: scope %s roles %v policy %q", cl.Scope, cl.Roles, cl.Policy)
	}
	// The policy is left to the operation: a cleanup goes on, a deploy stops.
	if hooks[0].PolicyFor(hook.Delete) != hookrun.Continue || hooks[0].PolicyFor(hook.Deploy) != hookrun.Abort {
		t.Error("a command-line hook must take each operation's default policy")
	}
}

func TestCommandLineHooksDestroyRunOnCleanupOnly(t *testing.T) {
	cmdlineDir(t)
	hooks, err := CommandLineHooks([]HookFlag{{FlagPrehook, "x.sh"}, {FlagClusterPosthook, "x.sh"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := hooks[0].On; !reflect.DeepEqual(got, []hook.Event{ev(hook.Pre, hook.Cleanup)}) {
		t.Errorf("destroy prehook events %v, want only pre-cleanup", got)
	}
	if got := hooks[1].On; !reflect.DeepEqual(got, []hook.Event{ev(hook.Post, hook.Cleanup)}) {
		t.Errorf("destroy cluster posthook events %v, want only post-cleanup", got)
	}
}

func TestCommandLineHookErrorsNameFlagAndValue(t *testing.T) {
	dir := cmdlineDir(t)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, tc := range []struct {
		flag HookFlag
		want string
	}{
		{HookFlag{FlagPrehook, ""}, "--prehook=: no script path"},
		{HookFlag{FlagPrehook, ",worker"}, "--prehook=,worker: no script path"},
		{HookFlag{FlagClusterPrehook, ""}, "--cluster-prehook=: no script path: write --cluster-prehook=PATH "},
		{HookFlag{FlagPrehook, "missing.sh"}, "--prehook=missing.sh: missing.sh (" + filepath.Join(dir, "missing.sh") + ") does not exist"},
		{HookFlag{FlagPosthook, "fifo,master"}, "--posthook=fifo,master: hook source " + fifo + ": not a regular file or a directory"},
		{HookFlag{FlagPrehook, "empty"}, "--prehook=empty: hook source " + filepath.Join(dir, "empty") + ": the directory holds no scripts"},
		{HookFlag{FlagPrehook, "x.sh,wrker"}, `--prehook=x.sh,wrker: unknown role "wrker": roles are master, worker, etcd, loadbalance`},
		{HookFlag{FlagPrehook, "x.sh,"}, `--prehook=x.sh,: unknown role ""`},
		{HookFlag{FlagPosthook, "x.sh,master,worker"}, "--posthook=x.sh,master,worker: more than one comma"},
		{HookFlag{FlagClusterPosthook, "x.sh,master"}, "a cluster hook takes no ROLE"},
		{HookFlag{"hook", "x.sh"}, "--hook=x.sh: not a hook flag"},
	} {
		_, err := CommandLineHooks([]HookFlag{tc.flag}, false)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.flag, err, tc.want)
		}
		var fe *HookFlagError
		if !errors.As(err, &fe) || fe.Flag != tc.flag {
			t.Errorf("%s: error %v is not a HookFlagError naming the flag", tc.flag, err)
		}
	}
	// Every bad flag is reported, not only the first.
	_, err := CommandLineHooks([]HookFlag{{FlagPrehook, "a.sh"}, {FlagPrehook, "x.sh"}, {FlagPosthook, "b.sh"}}, false)
	if n := len(flattenErrors(err)); n != 2 {
		t.Errorf("%d errors for two bad flags: %v", n, err)
	}
}

func TestAddCommandLineHooksJoinHCLHooksOutsideTheHash(t *testing.T) {
	cfgDir := writeDir(t, map[string]string{
		"main.hcl": minimal + `
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
hook "a" {
  on     = "pre-join"
  source = "a.sh"
}
`,
		"a.sh": "echo a\n",
	})
	cmdlineDir(t)
	cfg := mustLoad(t, cfgDir, VarInput{})
	hash := cfg.Hash
	if diags := AddCommandLineHooks(cfg, []HookFlag{{FlagPrehook, "x.sh,master"}}, false); diags.HasErrors() {
		t.Fatal(render(cfg, diags))
	}
	if len(cfg.Hooks) != 2 || cfg.Hooks[0].Name != "a" || cfg.Hooks[1].Name != "cli_prehook_1" {
		t.Fatalf("hooks %+v: want the HCL hook, then the flag's", cfg.Hooks)
	}
	if cfg.Hash != hash {
		t.Error("a hook flag changed the configuration hash: a saved plan carries its hooks, the hash is the HCL's")
	}

	diags := AddCommandLineHooks(cfg, []HookFlag{{FlagPrehook, "x.sh,boss"}, {FlagPosthook, "nope.sh"}}, false)
	if len(diags) != 2 || diags[0].Summary != "Invalid hook flag" || !strings.Contains(diags[0].Detail, "--prehook=x.sh,boss") ||
		!strings.Contains(diags[1].Detail, "--posthook=nope.sh") {
		t.Fatalf("diagnostics %s", render(cfg, diags))
	}
	if len(cfg.Hooks) != 2 {
		t.Error("bad flags must add no hook")
	}
}

func TestAddCommandLineHooksRefusesAClashWithAHookBlock(t *testing.T) {
	cfgDir := writeDir(t, map[string]string{
		"main.hcl": minimal + `
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
hook "cli_prehook_1" {
  on     = "pre-join"
  source = "a.sh"
}
`,
		"a.sh": "echo a\n",
	})
	cmdlineDir(t)
	cfg := mustLoad(t, cfgDir, VarInput{})
	diags := AddCommandLineHooks(cfg, []HookFlag{{FlagPrehook, "x.sh"}}, false)
	if !diags.HasErrors() || !strings.Contains(diags[0].Detail, "main.hcl:") || !strings.Contains(diags[0].Detail, "cli_prehook_1") {
		t.Fatalf("want a clash naming the block, got %s", render(cfg, diags))
	}
}

func TestCommandLineHookOnAnAbsentRoleWarns(t *testing.T) {
	cfgDir := writeDir(t, map[string]string{"main.hcl": minimal + `
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
`})
	cmdlineDir(t)
	cfg := mustLoad(t, cfgDir, VarInput{})
	diags := AddCommandLineHooks(cfg, []HookFlag{{FlagPrehook, "x.sh,loadbalance"}, {FlagPosthook, "x.sh,worker"}}, false)
	if diags.HasErrors() || len(diags) != 1 || diags[0].Summary != "Hook selects no node" || !strings.Contains(diags[0].Detail, "--prehook=x.sh,loadbalance") {
		t.Fatalf("want one warning naming the flag, got %s", render(cfg, diags))
	}
	if len(cfg.Hooks) != 2 {
		t.Fatalf("hooks %d: a warning adds the hook all the same", len(cfg.Hooks))
	}
}
