package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/command/jsonmsg"
	"github.com/eggo-project/eggo/resources"
)

// demoDir is examples/demo, whose variables nodes, ssh_private_key_file
// and ssh_known_hosts_file have no default.
func demoDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "examples", "demo"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// dirNames lists dir, to check a command left nothing behind.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestValidateWithoutValues: validate takes a variable without a value
// as unknown (CI has no values); plan still refuses it, naming it.
func TestValidateWithoutValues(t *testing.T) {
	dir := demoDir(t)
	before := dirNames(t, dir)
	r := eggo(t, invocation{}, "-chdir="+dir, "validate")
	if r.code != 0 {
		t.Fatalf("validate: exit %d, want 0\n%s", r.code, r.all())
	}
	mustContain(t, "validate", r.out, "Success!", "var.nodes, var.ssh_private_key_file, var.ssh_known_hosts_file", "not checked")

	r = eggo(t, invocation{}, "-chdir="+dir, "validate", "-json")
	var msg jsonmsg.Valid
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.out)), &msg); r.code != 0 || err != nil || msg.Type != jsonmsg.TypeValid {
		t.Fatalf("validate -json: exit %d, %v\n%s", r.code, err, r.all())
	}
	if want := []string{"nodes", "ssh_private_key_file", "ssh_known_hosts_file"}; !slices.Equal(msg.UnsetVariables, want) {
		t.Errorf("unset_variables = %q, want %q", msg.UnsetVariables, want)
	}

	r = eggo(t, invocation{}, "-chdir="+dir, "plan")
	if r.code != 1 {
		t.Fatalf("plan: exit %d, want 1\n%s", r.code, r.all())
	}
	mustContain(t, "plan", r.err, "No value for required variable", `The variable "nodes" has no default`, "on main.hcl line 6")
	if after := dirNames(t, dir); !slices.Equal(before, after) {
		t.Errorf("the commands changed %s: %q, then %q", dir, before, after)
	}
}

// TestValidateChecksWhatIsKnown: beside an unset variable, a mistake that
// does not depend on it is reported alone, at its line; a value that is
// given is checked.
func TestValidateChecksWhatIsKnown(t *testing.T) {
	dir := t.TempDir()
	hcl := `variable "addr" { type = string }
cluster "t" {
  kubernetes_version = "1.31.4"
}
node "n1" {
  address = var.addr
  roles   = ["mastr", "etcd"]
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	r := eggo(t, invocation{}, "-chdir="+dir, "validate")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.all())
	}
	if n := strings.Count(r.err, "Error:"); n != 1 {
		t.Errorf("%d errors, want only the unknown role:\n%s", n, r.err)
	}
	mustContain(t, "validate", r.err, "Error: Unknown role", "on main.hcl line 7", `"mastr" is not a role`)

	r = eggo(t, invocation{}, "-chdir="+dir, "validate", "-var", "addr=not a host")
	mustContain(t, "validate -var", r.err, "Error: Invalid node address", "on main.hcl line 6", "Error: Unknown role")
}

// TestValidateExamplesWithoutValues validates every example with no value
// for its variables. The package bundle is a stand-in (EGGO_VAR_packages
// overrides a default, it sets no required variable): the examples' default
// is the real bundle, which `make bundle` builds and a test machine may lack.
func TestValidateExamplesWithoutValues(t *testing.T) {
	bundle := t.TempDir()
	for _, rel := range resources.RequiredBundleFiles() {
		standIn(t, filepath.Join(bundle, "amd64", rel))
	}
	// validate checks that a private key file exists: the examples that
	// name ~/.ssh/id_ed25519 get a home that has one (the loader expands
	// "~" with the process's HOME).
	home := t.TempDir()
	standIn(t, filepath.Join(home, ".ssh", "id_ed25519"))
	t.Setenv("HOME", home)
	dirs, err := filepath.Glob(filepath.Join("..", "examples", "*", "*.hcl"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no example: %v", err)
	}
	seen := map[string]bool{}
	for _, hcl := range dirs {
		dir, _ := filepath.Abs(filepath.Dir(hcl))
		if seen[dir] {
			continue
		}
		seen[dir] = true
		t.Run(filepath.Base(dir), func(t *testing.T) {
			env := []string{"HOME=" + home, "EGGO_VAR_packages=" + bundle}
			r := eggo(t, invocation{env: env}, "-chdir="+dir, "validate")
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", r.code, r.all())
			}
			mustContain(t, "validate", r.out, "Success!")
		})
	}
}

// TestKeyFileCheckedBeforeConnecting: a missing private key file is an
// error at its line in validate and plan, before any host is contacted.
func TestKeyFileCheckedBeforeConnecting(t *testing.T) {
	dir := t.TempDir()
	hcl := `cluster "t" {
  kubernetes_version = "1.31.4"
}
connection {
  private_key_file = "keys/missing"
}
node "n1" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"validate", "plan"} {
		r := eggo(t, invocation{}, "-chdir="+dir, cmd)
		if r.code != 1 {
			t.Fatalf("%s: exit %d, want 1\n%s", cmd, r.code, r.all())
		}
		mustContain(t, cmd, r.err, "Error: Private key file not found", "on main.hcl line 5",
			filepath.Join(dir, "keys", "missing")+", which does")
	}
	r := eggo(t, invocation{}, "-chdir="+dir, "validate", "-json")
	if r.code != 1 || !strings.Contains(r.out, `"summary":"Private key file not found"`) || !strings.Contains(r.out, `"line":5`) {
		t.Fatalf("validate -json: exit %d\n%s", r.code, r.all())
	}
}
