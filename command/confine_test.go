package command

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// What a GitOps Job mounts, by form: an SSH private key, an age identity
// and a ServiceAccount token.
const (
	jobSSHKey   = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQk3yB0DYzz91c\n-----END OPENSSH PRIVATE KEY-----\n"
	jobIdentity = "# created: 2024-01-01\nAGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQ8K3\n"
	jobToken    = "eyJhbGciOiJSUzI1NiIsImtpZCI6InQifQ.eyJpc3MiOiJrdWJlcm5ldGVzIn0.c2lnLXRva2VuLWJ5dGVzLTNiOWY"
)

// jobMounts writes the three into a directory outside the fixture's
// configuration directory, links cfg/creds to it, and returns it.
func jobMounts(f *fixture) string {
	f.t.Helper()
	dir := f.t.TempDir()
	for name, content := range map[string]string{"ssh-privatekey": jobSSHKey, "identity": jobIdentity, "token": jobToken} {
		writeFile(f.t, filepath.Join(dir, name), content)
	}
	if err := os.Symlink(dir, filepath.Join(f.dir, "creds")); err != nil {
		f.t.Fatal(err)
	}
	return dir
}

// noCredential fails if r printed a piece of a test credential, as
// written or in Base64.
func noCredential(t *testing.T, what string, r result) {
	t.Helper()
	pieces := []string{"PRIVATE KEY", "b3BlbnNzaC1rZXkt", "k3yB0DY", "AGE-SECRET-KEY", "QYQSZQGP", "eyJhbGci", "c2lnLXRva2Vu", "LS0tLS1CRUdJTi"}
	for _, c := range []string{jobIdentity, jobToken} {
		pieces = append(pieces, base64.StdEncoding.EncodeToString([]byte(c))[:16])
	}
	for _, p := range pieces {
		if strings.Contains(r.all(), p) {
			t.Fatalf("%s printed %q, a piece of a credential:\n%s", what, p, r.all())
		}
	}
}

// Confined (-confine-files, EGGO_CONFINE_FILES=1, and every eggo a GitOps
// Job runs), a configuration reads none of the Job's mounted credentials:
// through file(), filebase64(), templatefile(), a hook's files or source,
// a link in its directory, or "..". Each is an error at its line naming
// the path, in every format, with no byte of the credential.
func TestConfinedConfigurationReadsNoMountedCredential(t *testing.T) {
	output := func(expr string) string {
		return "output \"x\" {\n  value     = " + expr + "\n  sensitive = true\n}\n"
	}
	hookWith := func(attrs string) string {
		return "hook \"h\" {\n  on     = \"pre-deploy\"\n" + attrs + "}\n"
	}
	cases := []struct {
		name, leak string // leak.hcl; CREDS is the mounts' directory
		line       int
	}{
		{"file", output(`file("CREDS/ssh-privatekey")`), 2},
		{"filebase64", output(`filebase64("CREDS/identity")`), 2},
		{"templatefile", output(`templatefile("CREDS/token", {})`), 2},
		{"a link in the directory", output(`file("creds/ssh-privatekey")`), 2},
		{"an escape with ..", output(`file("../../REL/identity")`), 2},
		{"hook files", hookWith("  source = \"hook.sh\"\n  files  = [{ src = \"CREDS/token\", dst = \"/tmp/t\" }]\n"), 4},
		{"hook source", hookWith("  source = \"CREDS/ssh-privatekey\"\n"), 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			creds := jobMounts(f)
			f.write("hook.sh", "#!/bin/sh\n")
			rel := strings.Repeat("../", strings.Count(f.dir, "/")) // from the directory to /
			f.write("leak.hcl", strings.NewReplacer("CREDS", creds, "../../REL", rel+creds[1:]).Replace(c.leak))
			where := "leak.hcl line " + strconv.Itoa(c.line)
			for _, run := range []struct {
				env  []string
				args []string
				in   string // where the line is, in this format
			}{
				{nil, []string{"plan", "-confine-files"}, where},
				{nil, []string{"plan", "-json", "-confine-files"}, "leak.hcl:" + strconv.Itoa(c.line) + ","},
				{nil, []string{"validate", "-confine-files"}, where},
				{[]string{"EGGO_CONFINE_FILES=1"}, []string{"apply", "-auto-approve"}, where},
				{[]string{"EGGO_CONFINE_FILES=1"}, []string{"validate", "-json"}, "leak.hcl:" + strconv.Itoa(c.line) + ","},
			} {
				r := eggo(t, invocation{env: f.env(run.env...)}, append([]string{f.chdir()}, run.args...)...)
				what := "eggo " + strings.Join(run.args, " ")
				if r.code != 1 {
					t.Fatalf("%s: exit %d, want 1\n%s", what, r.code, r.all())
				}
				noCredential(t, what, r)
				mustContain(t, what, flat(r.all()), run.in, "lies outside the configuration directory and the bundle")
			}
			if fileExists(f.statePath()) {
				t.Error("a refused apply wrote a state")
			}
		})
	}
}

// Unconfined, file() of a private key works, and its value is sensitive:
// an output shows it as (sensitive value), in every format; an output not
// declared sensitive, and an attribute that would show it, refuse it at
// their line without showing it.
func TestFileOfAPrivateKeyIsSensitive(t *testing.T) {
	f := newFixture(t)
	f.write("id_test", jobSSHKey)
	f.write("out.hcl", "output \"key\" {\n  value     = file(\"id_test\")\n  sensitive = true\n}\n")
	r := f.mustRun(0, "plan")
	noCredential(t, "plan", r)
	mustContain(t, "plan", r.out, "key = (sensitive value)")
	noCredential(t, "plan -json", f.mustRun(0, "plan", "-json"))

	f.write("out.hcl", "output \"key\" {\n  value = trimspace(file(\"id_test\"))\n}\n")
	r = f.mustRun(1, "plan")
	noCredential(t, "plan", r)
	mustContain(t, "plan", flat(r.err), "Output refers to sensitive values", "out.hcl line 2")

	f.write("out.hcl", "")
	f.writeConfig("  labels = { key = base64encode(file(\"id_test\")) }\n")
	r = f.mustRun(1, "plan")
	noCredential(t, "plan", r)
	mustContain(t, "plan", flat(r.err), "Sensitive value not allowed here", "main.hcl line 14")
}

// flat is text as one line of words, its JSON quotes unescaped: a human
// view wraps its messages.
func flat(text string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(text, `\"`, `"`)), " ")
}

// A private key or an identity given as connection.user is refused at its
// line and not shown: read by file(), from a variable, or written in.
func TestConnectionUserHoldingAKeyIsRefused(t *testing.T) {
	f := newFixture(t)
	f.write("id_test", jobSSHKey)
	f.write("login.hcl", "variable \"login\" {\n  default = \"root\"\n}\n")
	for _, c := range []struct {
		user, summary string
		env           []string
	}{
		{`file("id_test")`, "Sensitive value not allowed here", nil},
		{"var.login", "Credential not allowed here", []string{"EGGO_VAR_login=" + jobSSHKey}},
		{"var.login", "Credential not allowed here", []string{"EGGO_VAR_login=" + strings.TrimSpace(jobIdentity[strings.Index(jobIdentity, "AGE"):])}},
		{`"` + strings.TrimSpace(jobIdentity[strings.Index(jobIdentity, "AGE"):]) + `"`, "Credential not allowed here", nil},
		{"<<EOT\n" + jobSSHKey + "EOT", "Credential not allowed here", nil},
	} {
		f.writeConfig("  connection {\n    user = " + c.user + "\n  }\n")
		for _, args := range [][]string{{"plan"}, {"plan", "-json"}, {"validate"}} {
			r := eggo(t, invocation{env: f.env(c.env...)}, append([]string{f.chdir()}, args...)...)
			what := "eggo " + strings.Join(args, " ") + " with user = " + c.user[:min(len(c.user), 20)]
			if r.code != 1 {
				t.Fatalf("%s: exit %d\n%s", what, r.code, r.all())
			}
			noCredential(t, what, r)
			mustContain(t, what, flat(r.all()), c.summary, `The value of "user"`)
		}
	}
}

// Confined, no hook runs on the machine running eggo — in a Job, the
// Job's container with its credentials: run_on = "operator" is refused at
// its line, as is a node hook on a node reached with type = "local".
func TestConfinedHookOnThisMachineIsRefused(t *testing.T) {
	f := newFixture(t)
	f.write("hook.sh", "#!/bin/sh\n")
	for _, c := range []struct{ hook, where, detail string }{
		{"hook \"h\" {\n  on     = \"pre-deploy\"\n  scope  = \"cluster\"\n  run_on = \"operator\"\n  source = \"hook.sh\"\n}\n",
			"hooks.hcl line 4", `Hook "h" has run_on = "operator"`},
		{"hook \"h\" {\n  on     = \"pre-deploy\"\n  source = \"hook.sh\"\n}\n", "hooks.hcl line 1", `Hook "h" would run on node "n1"`},
	} {
		f.write("hooks.hcl", c.hook)
		f.mustRun(0, "plan") // unconfined, as before
		for _, r := range []result{f.run("plan", "-confine-files"), eggo(t, invocation{env: f.env("EGGO_CONFINE_FILES=1")}, f.chdir(), "apply", "-auto-approve")} {
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\n%s", r.code, r.all())
			}
			mustContain(t, "confined", flat(r.err), "Hook would run on this machine", c.where, c.detail)
		}
	}
	if fileExists(f.statePath()) {
		t.Error("a refused apply wrote a state")
	}
}
