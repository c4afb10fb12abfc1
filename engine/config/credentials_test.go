package config

import (
	"strings"
	"testing"
)

// A value a file function reads is sensitive when the file holds a
// private key, an identity or a token: an output must say
// sensitive = true to hold it, and then does.
func TestFileOfACredentialIsSensitive(t *testing.T) {
	for name, content := range map[string]string{"key": testSSHKey, "identity": testIdentity, "token": testToken} {
		for _, expr := range []string{`file("cred")`, `filebase64("cred")`, `templatefile("cred", {})`, `upper(file("cred"))`} {
			t.Run(name+" "+expr, func(t *testing.T) {
				files := map[string]string{"cred": content, "main.hcl": minimal + oneNode + "output \"x\" {\n  value = " + expr + "\n}\n"}
				cfg, diags := loadErrors(t, writeDir(t, files), VarInput{})
				noCredentialIn(t, "the diagnostics", render(cfg, diags))
				wantAt(t, diags, "Output refers to sensitive values", 11, "is computed from a sensitive value")

				files["main.hcl"] = minimal + oneNode + "output \"x\" {\n  value     = " + expr + "\n  sensitive = true\n}\n"
				if o := mustLoad(t, writeDir(t, files), VarInput{}).Outputs[0]; !o.Sensitive || o.Value.IsMarked() {
					t.Errorf("output %+v", o)
				}
			})
		}
	}
	// A file that holds none is not.
	files := map[string]string{"cred": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHFHBsjFeWQ4ziUoFvd6 ops@example\n",
		"main.hcl": minimal + oneNode + "output \"x\" {\n  value = file(\"cred\")\n}\n"}
	mustLoad(t, writeDir(t, files), VarInput{})
}

// No message repeats a credential: a function's error about a sensitive
// argument (go-cty hands functions their arguments unmarked), a template
// holding one, a value quoted back, HCL's own messages.
func TestCredentialsAreNeverEchoed(t *testing.T) {
	identity := strings.TrimSpace(testIdentity[strings.Index(testIdentity, "AGE"):])
	cases := []struct {
		name, hcl, summary string
		line               int
		detail             string
	}{
		{"a function's error", `api_endpoint = cidrhost(file("key.pem"), 1)`, "Error in function call", 3, hiddenValue},
		{"another function's error", `api_endpoint = regex(file("key.pem"), "x")`, "Error in function call", 3, hiddenValue},
		{"a sensitive variable's", `api_endpoint = cidrhost(var.s, 1)`, "Error in function call", 3, hiddenValue},
		{"a sensitive path", `api_endpoint = file(var.s)`, "Error in function call", 3, hiddenValue},
		{"a template holding a key", `api_endpoint = templatefile("broken.pem", {})`, "Error in function call", 3,
			"template broken.pem holds a private key, so its errors are not shown"},
		{"written in clear", `config_dir = "` + identity + `"`, "Credential not allowed here", 3, `The value of "config_dir" holds an age identity`},
		{"from a variable", `config_dir = var.plain`, "Credential not allowed here", 3, `The value of "config_dir" holds a private key`},
		{"HCL's own message", identity + ` = 1`, "Unsupported argument", 3, hiddenValue},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeDir(t, map[string]string{
				"main.hcl": "\ncluster \"demo\" {\n  " + c.hcl + "\n  kubernetes_version = \"1.31.4\"\n}\n" + oneNode +
					"variable \"s\" {\n  default   = \"not-a-cidr k3yB0DY\"\n  sensitive = true\n}\nvariable \"plain\" {\n  default = " + quotedHCL(testSSHKey) + "\n}\n",
				"key.pem":    testSSHKey,
				"broken.pem": strings.Replace(testSSHKey, "\n-----END", "${\n-----END", 1),
			})
			cfg, diags := loadErrors(t, dir, VarInput{})
			out := render(cfg, diags)
			noCredentialIn(t, "the diagnostics", out)
			wantAt(t, diags, c.summary, c.line, c.detail)
		})
	}
	if got := quoted("user " + identity); got != hiddenValue {
		t.Errorf("quoted = %s", got)
	}
}

// quotedHCL is s as an HCL string literal.
func quotedHCL(s string) string {
	return `"` + strings.ReplaceAll(s, "\n", `\n`) + `"`
}
