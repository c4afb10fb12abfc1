package command

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -out never overwrites what is not a plan: the state and its companions,
// a configuration file, a -var-file, or any other file. The refused command
// changes nothing.
func TestPlanOutRefusesWhatIsNotAPlan(t *testing.T) {
	f := newFixture(t)
	f.mustRun(0, "apply", "-auto-approve")
	f.write("vars.eggovars", "")
	f.write("notes.txt", "my notes\n")
	files := []string{"eggo.state", "eggo.state.backup", "main.hcl", "vars.eggovars", "notes.txt"}
	before := map[string][]byte{}
	for _, name := range files {
		before[name], _ = os.ReadFile(filepath.Join(f.dir, name))
	}
	for _, tc := range []struct{ out, says string }{
		{"eggo.state", "state file"},
		{"eggo.state.backup", "state file"},
		{"main.hcl", "configuration file"},
		{"other.hcl", "configuration file"},
		{"vars.eggovars", "-var-file"},
		{"notes.txt", "not an eggo plan"},
	} {
		args := []string{"plan", "-out=" + filepath.Join(f.dir, tc.out)}
		if tc.out == "vars.eggovars" {
			args = append(args, "-var-file="+filepath.Join(f.dir, "vars.eggovars"))
		}
		r := f.mustRun(1, args...)
		mustContain(t, "plan -out="+tc.out, r.err, tc.says)
	}
	for _, name := range files {
		if after, _ := os.ReadFile(filepath.Join(f.dir, name)); !bytes.Equal(before[name], after) {
			t.Errorf("%s changed after the refused plans", name)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dir, "other.hcl")); !os.IsNotExist(err) {
		t.Errorf("other.hcl was created: %v", err)
	}
}

// A plan file is created 0600, and an existing plan with a looser mode is
// replaced by a new private file, not rewritten in place.
func TestPlanOutIsPrivate(t *testing.T) {
	f := newFixture(t)
	planFile := filepath.Join(f.dir, "the.plan")
	f.mustRun(0, "plan", "-out="+planFile)
	if st, err := os.Stat(planFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("new plan file: %v, %v", st, err)
	}
	if err := os.Chmod(planFile, 0o644); err != nil {
		t.Fatal(err)
	}
	f.mustRun(0, "plan", "-out="+planFile)
	if st, err := os.Stat(planFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("re-saved plan file over a 0644 one: %v, %v", st.Mode().Perm(), err)
	}
	f.mustRun(0, "apply", planFile)
}

// sealedKeyMarker is the body of a private key a sensitive output holds:
// a saved plan of a sealed state holds it only sealed.
const sealedKeyMarker = "MHcCAQEEISealedPlanMarker9876543210"

// A plan of a sealed state is saved sealed (to the secrets block's
// recipients, or to the state's own once the block is gone): no private
// key, sensitive value or password in clear. show and apply open it with
// -identity and refuse it without, saying so; the same plan saved again
// is the same file.
func TestPlanOfASealedStateIsSealed(t *testing.T) {
	f := newFixture(t)
	id, idFile := newAgeIdentity(t)
	pem := "-----BEGIN EC PRIVATE KEY-----\n" + sealedKeyMarker + "\n-----END EC PRIVATE KEY-----"
	outputs := `variable "admin_key" {
  sensitive = true
}
output "admin_key" {
  value     = var.admin_key
  sensitive = true
}
`
	f.write("secret.hcl", outputs+`secrets {
  recipients = ["`+id.Recipient().String()+`"]
}
`)
	env := f.env("EGGO_VAR_admin_key=" + pem)
	run := func(want int, args ...string) result {
		t.Helper()
		r := eggo(t, invocation{env: env}, append([]string{f.chdir()}, args...)...)
		if r.code != want {
			t.Fatalf("eggo %s: exit %d, want %d\n%s", strings.Join(args, " "), r.code, want, r.all())
		}
		assertNoSecret(t, r)
		return r
	}
	ident := "-identity=" + idFile
	// The first plan, of a new cluster sealed by its secrets block, says
	// how to apply it.
	r := run(0, "plan", "-out="+filepath.Join(f.dir, "first.plan"), ident)
	mustContain(t, "plan -out of a sealed cluster", r.out, "sealed to the state's recipients", "eggo apply -identity=FILE ")
	run(0, "apply", "-auto-approve", ident)
	planFile := filepath.Join(f.dir, "the.plan")
	sealed := func(path string) []byte {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, clear := range []string{"PRIVATE KEY", sealedKeyMarker, passwordValue} {
			if bytes.Contains(data, []byte(clear)) {
				t.Errorf("%s holds %q in clear", filepath.Base(path), clear)
			}
		}
		if !bytes.Contains(data, []byte(`"sealed_plan"`)) || !bytes.Contains(data, []byte(id.Recipient().String())) {
			t.Errorf("%s is not sealed to the recipient:\n%.300s", filepath.Base(path), data)
		}
		return data
	}
	run(0, "plan", "-out="+planFile, ident)
	first := sealed(planFile)
	run(0, "plan", "-out="+planFile, ident)
	if !bytes.Equal(sealed(planFile), first) {
		t.Error("the same plan saved again is another file")
	}

	r = run(1, "show", planFile)
	mustContain(t, "show of a sealed plan without an identity", r.err, "sealed plan", "-identity=FILE")
	r = run(0, "show", ident, planFile)
	if strings.Contains(r.out, sealedKeyMarker) {
		t.Error("show printed the key")
	}
	before, _ := os.ReadFile(f.statePath())
	r = run(1, "apply", planFile)
	mustContain(t, "apply of a sealed plan without an identity", r.err, "sealed plan", "-identity=FILE")
	if after, _ := os.ReadFile(f.statePath()); !bytes.Equal(before, after) {
		t.Error("a refused apply changed the state")
	}
	run(0, "apply", ident, planFile)

	// No secrets block any more: the state stays sealed, and so does its plan.
	f.write("secret.hcl", outputs)
	sticky := filepath.Join(f.dir, "sticky.plan")
	run(0, "plan", "-out="+sticky, ident)
	sealed(sticky)
	run(0, "apply", ident, sticky)
}

// A plan of a plain state stays a plain plan file.
func TestPlanOfAPlainStateIsPlain(t *testing.T) {
	f := newFixture(t)
	planFile := filepath.Join(f.dir, "the.plan")
	f.mustRun(0, "plan", "-out="+planFile)
	data, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"plan": {`)) || bytes.Contains(data, []byte("sealed_plan")) {
		t.Fatalf("a plain state's plan:\n%.300s", data)
	}
}
