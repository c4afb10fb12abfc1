package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHelpListsCommandsAndExitCodes(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-help"}, {}} {
		r := eggo(t, invocation{}, args...)
		text := r.all()
		mustContain(t, "eggo "+strings.Join(args, " "), text,
			"validate", "plan", "apply", "destroy", "graph", "show", "state list", "state show", "state rm",
			"force-unlock", "version", "-chdir=DIR", "Exit codes")
	}
}

// eggo exits 0, 1 or 2 and nothing else: an unknown command (or none) is
// 1 with the help, never hashicorp/cli's 127.
func TestUnknownCommandExitsOne(t *testing.T) {
	r := eggo(t, invocation{}, "nosuch")
	if r.code != 1 {
		t.Fatalf("eggo nosuch: exit %d, want 1", r.code)
	}
	mustContain(t, "eggo nosuch", r.all(), `"nosuch" is not an eggo command`, "Usage: eggo")
	if r := eggo(t, invocation{}); r.code != 1 {
		t.Fatalf("eggo without a command: exit %d, want 1", r.code)
	}
}

func TestEveryCommandHelpSaysExitCodes(t *testing.T) {
	for name := range commands(&meta{}) {
		t.Run(name, func(t *testing.T) {
			args := append(strings.Fields(name), "-help")
			r := eggo(t, invocation{}, args...)
			mustContain(t, "eggo "+name+" -help", r.all(), "Exit codes", "Usage: eggo")
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name     string
		hcl      string // "" keeps the fixture's valid configuration
		code     int
		out, err []string
	}{
		{name: "valid", code: 0, out: []string{"Success!", "1 node"}},
		{
			name: "unknown attribute",
			hcl:  "cluster \"t\" {\n  kubernetes_version = \"1.31.4\"\n  colour = \"red\"\n}\nnode \"a\" {\n  address = \"10.0.0.1\"\n  roles = [\"worker\"]\n}\n",
			code: 1,
			err:  []string{"on main.hcl line 3", `3:   colour = "red"`, "Unsupported argument"},
		},
		{
			name: "syntax error",
			hcl:  "cluster \"t\" {\n  kubernetes_version = \n}\n",
			code: 1,
			err:  []string{"on main.hcl line 2", "2:   kubernetes_version = ", "Error:"},
		},
		{
			name: "bad connection type",
			hcl:  "cluster \"t\" {\n  kubernetes_version = \"1.31.4\"\n}\nconnection {\n  type = \"telnet\"\n}\nnode \"a\" {\n  address = \"10.0.0.1\"\n  roles = [\"worker\"]\n}\n",
			code: 1,
			err:  []string{"on main.hcl line 5", "Invalid connection type", `5:   type = "telnet"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.hcl != "" {
				f.write("main.hcl", tc.hcl)
			}
			r := f.run("validate")
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, r.all())
			}
			mustContain(t, "stdout", r.out, tc.out...)
			mustContain(t, "stderr", r.err, tc.err...)
		})
	}
}

func TestPlanOnEmptyState(t *testing.T) {
	f := newFixture(t)
	r := f.mustRun(0, "plan")
	mustContain(t, "plan", r.out, "# host.n1 will be created", `+ host.n1 {`, "Plan: 1 to add, 0 to change, 0 to destroy.")
	if _, err := os.Stat(f.statePath()); !os.IsNotExist(err) {
		t.Fatalf("plan wrote a state file (%v)", err)
	}
	if got := f.rootFiles(); len(got) != 0 {
		t.Fatalf("plan changed the host: %v", got)
	}
}

func TestPlanDetailedExitcode(t *testing.T) {
	f := newFixture(t)
	f.mustRun(2, "plan", "-detailed-exitcode")
	f.mustRun(0, "apply", "-auto-approve")
	r := f.mustRun(0, "plan", "-detailed-exitcode")
	mustContain(t, "plan", r.out, "No changes.")
}

func TestApplyApproval(t *testing.T) {
	tests := []struct {
		name    string
		inv     invocation
		code    int
		applied bool
		want    string
	}{
		{name: "no terminal", inv: invocation{inTTY: false, in: "yes\n"}, code: 1, want: "-auto-approve"},
		{name: "yes", inv: invocation{inTTY: true, in: "yes\n"}, code: 0, applied: true, want: "Apply complete!"},
		{name: "no", inv: invocation{inTTY: true, in: "no\n"}, code: 1, want: "cancelled"},
		{name: "end of input", inv: invocation{inTTY: true, in: ""}, code: 1, want: "cancelled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			tc.inv.env = f.env()
			r := eggo(t, tc.inv, f.chdir(), "apply")
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, r.all())
			}
			mustContain(t, "output", r.all(), tc.want)
			_, err := os.Stat(f.statePath())
			if hasState := err == nil; hasState != tc.applied {
				t.Fatalf("state file exists = %v, want %v", hasState, tc.applied)
			}
			if got := len(f.rootFiles()) > 0; got != tc.applied {
				t.Fatalf("host changed = %v, want %v: %v", got, tc.applied, f.rootFiles())
			}
		})
	}
}

func TestChdirErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-chdir=" + missing, "plan"}, missing},
		{[]string{"-chdir=", "plan"}, "-chdir needs a directory"},
		{[]string{"-chdir", t.TempDir(), "plan"}, "-chdir=DIR"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := eggo(t, invocation{}, tc.args...)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\n%s", r.code, r.all())
			}
			mustContain(t, "stderr", r.err, tc.want)
		})
	}
}

func TestColour(t *testing.T) {
	tests := []struct {
		name   string
		outTTY bool
		env    []string
		escape bool
	}{
		{"terminal", true, nil, true},
		{"terminal with NO_COLOR", true, []string{"NO_COLOR=1"}, false},
		{"no terminal", false, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			r := eggo(t, invocation{outTTY: tc.outTTY, env: f.env(tc.env...)}, f.chdir(), "plan", "-refresh=false")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.all())
			}
			if got := strings.Contains(r.out, "\x1b["); got != tc.escape {
				t.Fatalf("escape codes = %v, want %v:\n%q", got, tc.escape, r.out)
			}
		})
	}
}
