package config

import (
	"strings"
	"testing"
)

// secretValue is what the sensitive variable holds in these tests; it must
// never appear in a diagnostic.
const secretValue = "s3cr3t-Zq9"

// A value computed from a sensitive variable is refused at the line of
// the attribute it lands in, whatever expression carried it there, unless
// the attribute is a carrier (sensitive.go); the error never shows it.
func TestSensitiveValuesAreRefusedWhereTheyWouldShow(t *testing.T) {
	node := func(extra string) string {
		return "node \"m0\" {\n  address = \"10.0.0.1\"\n  roles   = [\"master\", \"etcd\", \"worker\"]\n" + extra + "}\n"
	}
	cluster := func(extra string) string {
		return "cluster \"demo\" {\n  kubernetes_version = \"1.31.4\"\n" + extra + "}\n" + node("")
	}
	cases := []struct {
		name, hcl, attr string
		line            int // of the refused attribute, counting the variable block's 4 lines first
	}{
		{"node address", "cluster \"demo\" {\n  kubernetes_version = \"1.31.4\"\n}\nnode \"m0\" {\n  address = var.secret\n  roles = [\"master\", \"etcd\", \"worker\"]\n}\n", "address", 9},
		{"node label through a local and a function", "locals {\n  tier = upper(var.secret)\n}\n" + minimal + node("  labels = { tier = local.tier }\n"), "labels", 15},
		{"node label in a template", minimal + node("  labels = { tier = \"x-${var.secret}\" }\n"), "labels", 12},
		{"extra_args", cluster("  extra_args = { kubelet = { \"node-ip\" = var.secret } }\n"), "extra_args", 7},
		{"cluster labels (hook arguments)", cluster("  labels = { token = var.secret }\n"), "labels", 7},
		{"cluster annotations", cluster("  annotations = { token = var.secret }\n"), "annotations", 7},
		{"max_unavailable", cluster("  max_unavailable = length(var.secret)\n"), "max_unavailable", 7},
		{"connection user", minimal + node("  connection {\n    user = var.secret\n  }\n"), "user", 13},
		{"web check url", minimal + node("") + "hook \"c\" {\n  on = \"post-deploy\"\n  web {\n    url = \"http://x/${var.secret}\"\n  }\n}\n", "url", 16},
		{"count", minimal + "node \"w\" {\n  count = length(var.secret)\n  address = \"10.0.0.${count.index + 2}\"\n  roles = [\"worker\"]\n}\n" + node(""), "count", 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeDir(t, map[string]string{"main.hcl": "variable \"secret\" {\n  default   = \"" + secretValue + "\"\n  sensitive = true\n}\n" + c.hcl})
			cfg, diags := loadErrors(t, dir, VarInput{})
			out := render(cfg, diags)
			if strings.Contains(out, secretValue) || strings.Contains(out, strings.ToUpper(secretValue)) {
				t.Fatalf("the secret leaked into a diagnostic:\n%s", out)
			}
			if !diags.HasErrors() || !strings.Contains(out, "sensitive") || !strings.Contains(out, `"`+c.attr+`"`) && c.attr != "count" {
				t.Fatalf("want a refusal naming %q:\n%s", c.attr, out)
			}
			if got := diags[0].Subject.Start.Line; got != c.line {
				t.Errorf("refused at line %d, want %d (the attribute):\n%s", got, c.line, out)
			}
		})
	}
}

// The carriers keep the value: a web check's headers and a sensitive output.
func TestSensitiveValuesReachTheirCarriers(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.hcl": "variable \"secret\" {\n  default   = \"" + secretValue + "\"\n  sensitive = true\n}\n" + minimal + `
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
hook "canary" {
  on = "post-deploy"
  web {
    url     = "http://canary.example/"
    headers = { Authorization = "Bearer ${var.secret}" }
  }
}
output "token" {
  value     = var.secret
  sensitive = true
}
`})
	cfg := mustLoad(t, dir, VarInput{})
	if h := cfg.Hooks[0].Check.Web.Headers["Authorization"]; h != "Bearer "+secretValue {
		t.Errorf("header = %q", h)
	}
	if o := cfg.Outputs[0]; !o.Sensitive || o.Value.AsString() != secretValue {
		t.Errorf("output = %+v", o)
	}
}
