package kube

import (
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

func TestUnitArgIsOneSystemdArgument(t *testing.T) {
	for in, want := range map[string]string{
		"--v=2":                      "--v=2",
		"--etcd-servers=https://a:1": "--etcd-servers=https://a:1",
		"--flag=a b":                 `"--flag=a b"`,
		`--x=say "hi"`:               `"--x=say \"hi\""`,
		"--cost=$HOME":               `"--cost=$$HOME"`,
		"--pct=50%":                  `"--pct=50%%"`,
		";":                          `";"`,
		`--p=C:\x`:                   `"--p=C:\\x"`,
		"":                           `""`,
	} {
		if got := unitArg(in); got != want {
			t.Errorf("unitArg(%q) = %s, want %s", in, got, want)
		}
	}
}

// An extra_args value with spaces is one flag on the unit's command line,
// not several.
func TestExtraArgWithSpacesIsOneFlag(t *testing.T) {
	c := podCluster("10.244.0.0/16", nil, "w0")
	c.Nodes = append(c.Nodes, resources.Node{Name: "m0", Address: "10.0.0.10", Roles: []string{"master", "etcd"}})
	c.ExtraArgs = map[string]map[string]string{"kube-apiserver": {"admission-control-config-file": "/etc/a b.yaml"}}
	ds, err := componentServices(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Addr != resources.ServiceAddr(resources.CompAPIServer, "m0") {
			continue
		}
		unit := parseService(d.Attrs).Unit
		if !strings.Contains(unit, `"--admission-control-config-file=/etc/a b.yaml"`) {
			t.Fatalf("the flag is not one quoted argument:\n%s", unit)
		}
		return
	}
	t.Fatal("no kube-apiserver service planned")
}
