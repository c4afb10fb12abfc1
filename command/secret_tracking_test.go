package command

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// trackedSecret is the sensitive variable's value: every command below is
// scanned for it, as are the state, its backup, the hook audit log and
// every file eggo wrote on the (local) host.
const trackedSecret = "tr4ck-ME-6d1f"

// A sensitive variable is followed through everything eggo prints and
// writes: it reaches the web check's header (the server sees it), is
// sealed in the state as an output, and appears nowhere else — not in
// plan, plan -json, apply, show, show -json, the debug log, the state, the
// audit log or the host's files. Where it would land somewhere eggo cannot
// protect (a node label, a component flag) the plan is refused at the
// attribute's line, without the value, and the state is left as it was.
func TestSensitiveVariableIsTrackedEverywhere(t *testing.T) {
	var authorized atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+trackedSecret {
			authorized.Add(1)
			w.Write([]byte(`{"ok": true}`))
			return
		}
		http.Error(w, "no", http.StatusForbidden)
	}))
	defer srv.Close()

	f := newFixture(t)
	id, idFile := newAgeIdentity(t)
	f.write("secret.hcl", `variable "token" {
  sensitive = true
}
secrets {
  recipients = ["`+id.Recipient().String()+`"]
}
hook "canary" {
  on = "post-deploy"
  web {
    url     = "`+srv.URL+`/health"
    headers = { Authorization = "Bearer ${var.token}" }
  }
  success_condition = "result.ok"
}
output "token" {
  value     = var.token
  sensitive = true
}
`)
	env := f.env("EGGO_LOG=debug", "EGGO_VAR_token="+trackedSecret)
	run := func(want int, args ...string) result {
		t.Helper()
		words := 1 // the identity flag goes after the command's name
		if args[0] == "state" {
			words = 2
		}
		full := append(append([]string{f.chdir()}, args[:words]...), "-identity="+idFile)
		r := eggo(t, invocation{env: env}, append(full, args[words:]...)...)
		if r.code != want {
			t.Fatalf("eggo %s: exit %d, want %d\n%s", strings.Join(args, " "), r.code, want, r.all())
		}
		if strings.Contains(r.all(), trackedSecret) {
			t.Fatalf("eggo %s printed the secret:\n%s", strings.Join(args, " "), r.all())
		}
		return r
	}
	run(2, "plan", "-detailed-exitcode")
	run(2, "plan", "-json", "-detailed-exitcode")
	run(2, "plan", "-detailed-exitcode", "-var", "token="+trackedSecret)
	run(0, "apply", "-auto-approve")
	if authorized.Load() == 0 {
		t.Fatal("the web check never sent the header built from the sensitive variable")
	}
	run(0, "apply", "-auto-approve") // a second write of the sealed state
	for _, args := range [][]string{{"show"}, {"show", "-json"}, {"state", "list"}, {"state", "show", "host.n1"}, {"hooks"}, {"state", "pull"}} {
		run(0, args...)
	}
	noSecretIn(t, f.dir)
	noSecretIn(t, f.root)

	// Refused where it cannot be protected; the state is untouched.
	before, err := os.ReadFile(f.statePath())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, hcl, where string }{
		{"label.hcl", "locals {\n  tier = \"t-${var.token}\"\n}\n", ""},
		{"main.hcl", "", "  labels = { tier = local.tier }\n"},
	} {
		if c.hcl != "" {
			f.write(c.file, c.hcl)
		} else {
			f.writeConfig(c.where)
		}
	}
	r := run(1, "plan")
	mustContain(t, "plan with a sensitive label", r.err, "Sensitive value not allowed here", "main.hcl line 14", `"labels"`)
	f.writeConfig("")
	f.write("label.hcl", "")
	f.write("flags.hcl", "locals {\n  flags = { kubelet = { \"node-labels\" = var.token } }\n}\n")
	f.write("main.hcl", strings.Replace(readFile(t, filepath.Join(f.dir, "main.hcl")), "packages           = \"./pkg\"\n",
		"packages           = \"./pkg\"\n  extra_args         = local.flags\n", 1))
	r = run(1, "apply", "-auto-approve")
	mustContain(t, "apply with a sensitive flag", r.err, "Sensitive value not allowed here", "main.hcl line 4", `"extra_args"`)
	if after, _ := os.ReadFile(f.statePath()); string(after) != string(before) {
		t.Error("a refused command changed the state")
	}
}

// noSecretIn fails if any file under dir holds trackedSecret.
func noSecretIn(t *testing.T, dir string) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || !info.Mode().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), trackedSecret) {
			t.Errorf("%s holds the secret", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
