package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestRegistryMirrors: runtime.registry_mirrors reaches the model as
// hosts.toml names the mirrors (scheme lowercased, trailing slash
// dropped), in the order given, and reads back as
// cluster.runtime.registry_mirrors; a map from a variable is checked too,
// at its expression. Without it there are no mirrors.
func TestRegistryMirrors(t *testing.T) {
	if c := mustLoad(t, writeDir(t, map[string]string{"main.hcl": minimal + allInOne}), VarInput{}).Cluster; c.Runtime.RegistryMirrors != nil {
		t.Errorf("registry_mirrors by default: %v", c.Runtime.RegistryMirrors)
	}
	cfg := mustLoad(t, writeDir(t, map[string]string{"main.hcl": `
cluster "demo" {
  kubernetes_version = "1.36.5"
  runtime {
    registry_mirrors = {
      "registry.k8s.io" = ["HTTP://10.77.0.1:5000/", "https://mirror.example"]
      "10.0.0.5:5000"   = ["http://[fd00::1]:5000"]
      _default          = ["https://mirror.example:8443"]
    }
  }
}
` + allInOne + `
output "mirrors" {
  value = join(" ", cluster.runtime.registry_mirrors["registry.k8s.io"])
}
`}), VarInput{})
	want := map[string][]string{
		"registry.k8s.io": {"http://10.77.0.1:5000", "https://mirror.example"},
		"10.0.0.5:5000":   {"http://[fd00::1]:5000"},
		"_default":        {"https://mirror.example:8443"},
	}
	if got := cfg.Cluster.Runtime.RegistryMirrors; !reflect.DeepEqual(got, want) {
		t.Errorf("registry_mirrors = %v, want %v", got, want)
	}
	if got := cfg.Outputs[0].Value.AsString(); got != "http://10.77.0.1:5000 https://mirror.example" {
		t.Errorf("cluster.runtime.registry_mirrors[\"registry.k8s.io\"] = %q", got)
	}

	_, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": `
variable "mirrors" {
  type = map(list(string))
}
cluster "demo" {
  kubernetes_version = "1.36.5"
  runtime {
    registry_mirrors = var.mirrors
  }
}
` + allInOne}), VarInput{Vars: []string{`mirrors={ "registry.k8s.io" = ["http://10.77.0.1:5000/v2"] }`}})
	if len(diags) != 1 || diags[0].Summary != "Invalid registry mirror" || diags[0].Subject == nil || diags[0].Subject.Start.Line != 8 ||
		!strings.Contains(diags[0].Detail, `"http://10.77.0.1:5000/v2" has a path`) {
		t.Errorf("a mirror with a path from a variable: %v, want one error on line 8", diags)
	}
}
