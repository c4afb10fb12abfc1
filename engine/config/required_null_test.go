package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// allSchemas is every block schema of the language, by the name the
// required-null cases use for it. A schema added to schema.go belongs here
// so that its required attributes are covered below.
var allSchemas = map[string]*hcl.BodySchema{
	"cluster":            clusterSchema,
	"network":            networkSchema,
	"certificates":       certificatesSchema,
	"client":             clientSchema,
	"runtime":            runtimeSchema,
	"addons":             addonsSchema,
	"connection":         connectionSchema,
	"bastion":            bastionSchema,
	"node":               nodeSchema,
	"variable":           variableSchema,
	"output":             outputSchema,
	"hook":               hookSchema,
	"web":                hookWebSchema,
	"prometheus":         hookPrometheusSchema,
	"secrets":            secretsSchema,
	"backend file":       fileBackendSchema,
	"backend etcd":       etcdBackendSchema,
	"backend kubernetes": kubeBackendSchema,
}

// nullable lists the required attributes null is a value for, not an
// omission: an output's value is data (Terraform's outputs take null too).
var nullable = map[string]bool{"output.value": true}

// requiredNullCases holds, for each required attribute ("block.attr"), a
// valid configuration with "@" where the attribute's value goes. Beside
// the schemas' required attributes, it has the ones a block's type
// requires (a shell hook's source).
var requiredNullCases = map[string]string{
	"cluster.kubernetes_version": `
cluster "demo" {
  kubernetes_version = @
}
` + nullNode,
	"node.address": minimal + `
node "m0" {
  address = @
  roles   = ["master", "etcd", "worker"]
}
`,
	"node.roles": minimal + `
node "m0" {
  address = "10.0.0.1"
  roles   = @
}
`,
	"hook.on": minimal + nullNode + `
hook "h" {
  on     = @
  source = "main.hcl"
}
`,
	"hook.source": minimal + nullNode + `
hook "h" {
  on     = ["pre-join"]
  source = @
}
`,
	"web.url": minimal + nullNode + `
hook "h" {
  on   = ["post-deploy"]
  type = "web"
  web {
    url = @
  }
}
`,
	"prometheus.address": minimal + nullNode + `
hook "h" {
  on   = ["post-deploy"]
  type = "prometheus"
  prometheus {
    address = @
    query   = "up"
  }
}
`,
	"prometheus.query": minimal + nullNode + `
hook "h" {
  on   = ["post-deploy"]
  type = "prometheus"
  prometheus {
    address = "http://127.0.0.1:9090"
    query   = @
  }
}
`,
	"secrets.recipients": minimal + nullNode + `
secrets {
  recipients = @
}
`,
	"backend etcd.endpoints": minimal + nullNode + `
backend "etcd" {
  endpoints = @
}
`,
	"output.value": minimal + nullNode + `
output "o" {
  value = @
}
`,
	"client.groups": `
cluster "demo" {
  kubernetes_version = "1.31.4"
  certificates {
    client "capi" {
      groups = @
    }
  }
}
` + nullNode,
}

const nullNode = `
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
`

// TestRequiredNull writes null, directly and through a local, into
// every required attribute of every block: each is an error at the
// attribute's line (never a success, never a panic), and the same
// configuration with a value loads.
func TestRequiredNull(t *testing.T) {
	for block, schema := range allSchemas {
		for _, as := range schema.Attributes {
			if as.Required && requiredNullCases[block+"."+as.Name] == "" {
				t.Errorf("%s.%s is required but has no case in requiredNullCases", block, as.Name)
			}
		}
	}
	values := map[string]string{
		"cluster.kubernetes_version": `"1.31.4"`,
		"node.address":               `"10.0.0.1"`,
		"node.roles":                 `["master", "etcd", "worker"]`,
		"hook.on":                    `["pre-join"]`,
		"hook.source":                `"main.hcl"`,
		"web.url":                    `"http://127.0.0.1/healthz"`,
		"prometheus.address":         `"http://127.0.0.1:9090"`,
		"prometheus.query":           `"up"`,
		"secrets.recipients":         fmt.Sprintf("[%q]", ageRecipient),
		"backend etcd.endpoints":     `["https://10.0.0.5:2379"]`,
		"output.value":               `"x"`,
		"client.groups":              `["system:masters"]`,
	}
	for name, src := range requiredNullCases {
		attr := name[strings.LastIndex(name, ".")+1:]
		t.Run(name, func(t *testing.T) {
			good := strings.Replace(src, "@", values[name], 1)
			mustLoad(t, writeDir(t, map[string]string{"main.hcl": good}), VarInput{})

			line := strings.Count(src[:strings.Index(src, "@")], "\n") + 1
			for _, null := range []string{"null", "local.nothing"} {
				main := strings.Replace(src, "@", null, 1) + "\nlocals {\n  nothing = null\n}\n"
				dir := writeDir(t, map[string]string{"main.hcl": main})
				if nullable[name] {
					mustLoad(t, dir, VarInput{})
					continue
				}
				cfg, diags := loadErrors(t, dir, VarInput{})
				found := false
				for _, d := range diags {
					if d.Summary == "Missing required argument" && d.Subject != nil && d.Subject.Start.Line == line &&
						strings.Contains(d.Detail, fmt.Sprintf("%q", attr)) {
						found = true
					}
				}
				if !found {
					t.Errorf("%s = %s: want Missing required argument naming %q on line %d; got:\n%s",
						name, null, attr, line, render(cfg, diags))
				}
			}
		})
	}
}
