package command

import (
	"os"
	"strings"
	"testing"
)

// A sensitive output is "(sensitive value)" in show and show -json: never
// printed because the state holds it readable, never dropped as if it did
// not exist.
func TestShowHidesSensitiveOutputs(t *testing.T) {
	f := newFixture(t)
	f.write("outputs.hcl", "output \"token\" {\n  value     = \"tok-SECRET-4471\"\n  sensitive = true\n}\noutput \"plain\" {\n  value = \"visible\"\n}\n")
	f.mustRun(0, "apply", "-auto-approve")
	for _, args := range [][]string{{"show"}, {"show", "-json"}} {
		r := f.mustRun(0, args...)
		if strings.Contains(r.out+r.err, "tok-SECRET-4471") {
			t.Errorf("eggo %s printed the sensitive output:\n%s", strings.Join(args, " "), r.out)
		}
		mustContain(t, "eggo "+strings.Join(args, " "), r.out, "token", "(sensitive value)", "visible")
	}
	r := f.mustRun(0, "show")
	mustContain(t, "show", r.out, "token = (sensitive value)")
}

// Sealed and shown without an identity: still listed, as sensitive.
func TestShowListsSealedOutputsWithoutIdentity(t *testing.T) {
	f := newFixture(t)
	id, idFile := newAgeIdentity(t)
	f.write("outputs.hcl", "output \"token\" {\n  value     = \"tok-SECRET-4471\"\n  sensitive = true\n}\n"+
		"secrets {\n  recipients = [\""+id.Recipient().String()+"\"]\n}\n")
	f.mustRun(0, "apply", "-auto-approve", "-identity="+idFile)
	if data, _ := os.ReadFile(f.statePath()); strings.Contains(string(data), "tok-SECRET-4471") {
		t.Fatal("the output is not sealed in the state")
	}
	for _, args := range [][]string{{"show"}, {"show", "-json"}} {
		r := f.mustRun(0, args...)
		if strings.Contains(r.out+r.err, "tok-SECRET-4471") {
			t.Errorf("eggo %s printed the sealed output", strings.Join(args, " "))
		}
		mustContain(t, "eggo "+strings.Join(args, " ")+" without an identity", r.out, "token", "(sensitive value)")
	}
}
