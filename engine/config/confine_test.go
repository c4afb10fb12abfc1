package config

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What a GitOps Job mounts, by form: an SSH private key, an age identity
// and a ServiceAccount token.
const (
	testSSHKey   = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQk3yB0DYzz91c\n-----END OPENSSH PRIVATE KEY-----\n"
	testIdentity = "# created: 2024-01-01\nAGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQ8K3\n"
	testToken    = "eyJhbGciOiJSUzI1NiIsImtpZCI6InQifQ.eyJpc3MiOiJrdWJlcm5ldGVzIn0.c2lnLXRva2VuLWJ5dGVzLTNiOWY"
)

// mounted writes the three into a directory of their own, outside any
// configuration directory, and returns it.
func mounted(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ssh-privatekey"), testSSHKey)
	writeFile(t, filepath.Join(dir, "identity"), testIdentity)
	writeFile(t, filepath.Join(dir, "token"), testToken)
	return dir
}

// noCredentialIn fails if text holds a piece of a test credential, as
// written or in Base64.
func noCredentialIn(t *testing.T, what, text string) {
	t.Helper()
	pieces := []string{"PRIVATE KEY", "b3BlbnNzaC1rZXkt", "k3yB0DY", "AGE-SECRET-KEY", "QYQSZQGP", "eyJhbGci", "c2lnLXRva2Vu", "LS0tLS1CRUdJTi"}
	for _, c := range []string{testIdentity, testToken} {
		pieces = append(pieces, base64.StdEncoding.EncodeToString([]byte(c))[:16])
	}
	for _, p := range pieces {
		if strings.Contains(text, p) {
			t.Fatalf("%s holds %q, a piece of a credential:\n%s", what, p, text)
		}
	}
}

// Confined, a configuration reads nothing outside its directory and the
// bundle: each way of reading a file is refused at its line, naming the
// path, and no byte of the credential is shown.
func TestConfinedConfigurationReadsNoMountedCredential(t *testing.T) {
	creds := mounted(t)
	output := func(expr string) string {
		return "output \"x\" {\n  value     = " + expr + "\n  sensitive = true\n}\n"
	}
	hookWith := func(attrs string) string {
		return "hook \"h\" {\n  on     = \"pre-deploy\"\n" + attrs + "}\n"
	}
	cases := []struct {
		name, main, leak string // main.hcl when not minimal+oneNode, leak.hcl
		line             int
		summary, path    string
	}{
		{name: "file", leak: output(`file("` + creds + `/ssh-privatekey")`), line: 2, summary: "Error in function call", path: creds + "/ssh-privatekey"},
		{name: "filebase64", leak: output(`filebase64("` + creds + `/identity")`), line: 2, summary: "Error in function call", path: creds + "/identity"},
		{name: "templatefile", leak: output(`templatefile("` + creds + `/token", {})`), line: 2, summary: "Error in function call", path: creds + "/token"},
		{name: "templatefile with sensitive vars", leak: "variable \"s\" {\n  default   = \"x\"\n  sensitive = true\n}\n" + output(`templatefile("`+creds+`/token", { s = var.s })`),
			line: 6, summary: "Error in function call", path: creds + "/token"},
		{name: "an escape with ..", leak: output(`file("REL/token")`), line: 2, summary: "Error in function call", path: "../"},
		{name: "a linked directory", leak: output(`file("creds/ssh-privatekey")`), line: 2, summary: "Error in function call", path: "creds/ssh-privatekey (it leads to " + creds},
		{name: "a linked file", leak: output(`file("key.pem")`), line: 2, summary: "Error in function call", path: "key.pem (it leads to " + creds},
		{name: "hook files", leak: hookWith("  source = \"hook.sh\"\n  files  = [{ src = \"" + creds + "/token\", dst = \"/tmp/t\" }]\n"), line: 4, summary: "Invalid hook file", path: creds + "/token"},
		{name: "hook files through a link", leak: hookWith("  source = \"hook.sh\"\n  files  = [{ src = \"creds/identity\", dst = \"/tmp/t\" }]\n"), line: 4, summary: "Invalid hook file", path: "creds/identity"},
		{name: "hook source", leak: hookWith("  source = \"" + creds + "/ssh-privatekey\"\n"), line: 3, summary: "Invalid hook source", path: creds + "/ssh-privatekey"},
		{name: "hook source directory with a linked script", leak: hookWith("  source = \"hooks\"\n"), line: 3, summary: "Invalid hook source", path: "hooks/b.sh (it leads to " + creds},
		{name: "packages", main: "cluster \"demo\" {\n  kubernetes_version = \"1.31.4\"\n  packages           = \"" + creds + "\"\n}\n" + oneNode,
			line: 3, summary: "Invalid packages path", path: creds},
		{name: "add-on manifests", main: "cluster \"demo\" {\n  kubernetes_version = \"1.31.4\"\n  addons {\n    manifests = [\"" + creds + "/token\"]\n  }\n}\n" + oneNode,
			line: 4, summary: "Invalid manifest path", path: creds + "/token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			main := minimal + oneNode
			if c.main != "" {
				main = c.main
			}
			dir := writeDir(t, map[string]string{"main.hcl": main, "hook.sh": "#!/bin/sh\n", "hooks/a.sh": "#!/bin/sh\n"})
			rel, err := filepath.Rel(dir, creds)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "leak.hcl"), strings.ReplaceAll(c.leak, "REL", rel))
			for link, target := range map[string]string{"creds": creds, "key.pem": creds + "/ssh-privatekey", "hooks/b.sh": creds + "/token"} {
				if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
					t.Fatal(err)
				}
			}
			mustLoad(t, dir, VarInput{}) // unconfined, it loads: the reads are refused by confinement alone
			for _, in := range []VarInput{{ConfineFiles: true}, {Env: []string{"EGGO_CONFINE_FILES=1"}}} {
				cfg, diags := loadErrors(t, dir, in)
				out := render(cfg, diags)
				noCredentialIn(t, "the diagnostics", out)
				wantAt(t, diags, c.summary, c.line, c.path)
				wantAt(t, diags, c.summary, c.line, "lies outside the configuration directory and the bundle")
			}
		})
	}
}

// Confined, the configuration's own files and its packages link (a Job
// links it to the bundle volume) are read as before; EGGO_CONFINE_FILES=0
// confines nothing.
func TestConfinedConfigurationReadsItsOwnFilesAndTheBundle(t *testing.T) {
	bundle := t.TempDir()
	writeFile(t, filepath.Join(bundle, "hooks/check.sh"), "#!/bin/sh\n")
	writeFile(t, filepath.Join(bundle, "motd"), "hello\n")
	dir := writeDir(t, map[string]string{
		"main.hcl": "cluster \"demo\" {\n  kubernetes_version = \"1.31.4\"\n  packages           = \"./packages\"\n}\n" + oneNode + `
hook "h" {
  on     = "pre-deploy"
  source = "packages/hooks"
  files  = [{ src = "notes/motd.tpl", dst = "/etc/motd" }, { src = "packages/motd", dst = "/etc/motd2" }]
}
output "x" {
  value = "${file("packages/motd")}${templatefile("notes/motd.tpl", { n = 1 })}${filebase64("./notes/../notes/motd.tpl")}"
}
`,
		"notes/motd.tpl": "n=${n}\n",
	})
	if err := os.Symlink(bundle, filepath.Join(dir, "packages")); err != nil {
		t.Fatal(err)
	}
	for _, in := range []VarInput{{ConfineFiles: true}, {Env: []string{"EGGO_CONFINE_FILES=0"}}} {
		cfg := mustLoad(t, dir, in)
		if got := cfg.Outputs[0].Value.AsString(); !strings.HasPrefix(got, "hello\nn=1\n") {
			t.Errorf("output = %q", got)
		}
	}
}

// Confined, no hook runs on the machine running eggo: in a Job that is
// the Job's container, with its credentials.
func TestConfinedHooksRunOnlyOnTheNodes(t *testing.T) {
	local := "node \"l0\" {\n  address = \"127.0.0.1\"\n  roles   = [\"worker\"]\n  connection {\n    type = \"local\"\n  }\n}\n"
	cases := []struct {
		name, nodes, hook string
		line              int
		detail            string
	}{
		{"run_on operator", oneNode, "  scope  = \"cluster\"\n  run_on = \"operator\"\n", 14, `Hook "h" has run_on = "operator"`},
		{"a node hook on a local node", oneNode + local, "", 17, `Hook "h" would run on node "l0"`},
		{"a node hook selecting a local node", oneNode + local, "  roles  = [\"worker\"]\n", 20, `Hook "h" would run on node "l0"`},
		{"a cluster hook on a local first master", strings.Replace(local, `"worker"`, `"master", "etcd"`, 1), "  scope  = \"cluster\"\n", 12, `Hook "h" would run on node "l0"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeDir(t, map[string]string{
				"main.hcl": minimal + c.nodes + "hook \"h\" {\n  on     = \"pre-deploy\"\n  source = \"hook.sh\"\n" + c.hook + "}\n",
				"hook.sh":  "#!/bin/sh\n",
			})
			mustLoad(t, dir, VarInput{})
			_, diags := loadErrors(t, dir, VarInput{ConfineFiles: true})
			wantAt(t, diags, "Hook would run on this machine", c.line, c.detail)
		})
	}
	// A hook on the nodes reached over SSH runs as before.
	dir := writeDir(t, map[string]string{
		"main.hcl": minimal + oneNode + "node \"l0\" {\n  address = \"127.0.0.1\"\n  roles = [\"worker\"]\n  connection {\n    type = \"local\"\n  }\n}\n" +
			"hook \"h\" {\n  on     = \"pre-deploy\"\n  source = \"hook.sh\"\n  roles  = [\"master\"]\n}\n",
		"hook.sh": "#!/bin/sh\n",
	})
	mustLoad(t, dir, VarInput{ConfineFiles: true})
}
