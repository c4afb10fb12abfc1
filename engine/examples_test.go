package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/eggo-project/eggo/engine/config"
	"github.com/eggo-project/eggo/resources"
)

// exampleVars are values for the variables an example requires (those
// without a default), as -var options.
var exampleVars = map[string][]string{
	"conformance": {
		`nodes={ lb0 = "192.0.2.10", m0 = "192.0.2.11", m1 = "192.0.2.12", m2 = "192.0.2.13", w0 = "192.0.2.21", w1 = "192.0.2.22" }`,
		"ssh_private_key_file=/nonexistent/id_ed25519",
		"ssh_known_hosts_file=/nonexistent/known_hosts",
	},
	"demo": {
		`nodes={ node-a = "192.0.2.1", node-b = "192.0.2.2", node-c = "192.0.2.3" }`,
		"ssh_private_key_file=/nonexistent/id_ed25519",
		"ssh_known_hosts_file=/nonexistent/known_hosts",
	},
}

// standInBundle is a bundle with a placeholder for every file eggo needs:
// the examples are planned, never applied, and the real bundle is 600 MB.
func standInBundle(t testing.TB) string {
	dir := t.TempDir()
	writeStandInBundle(t, dir)
	return dir
}

// writeStandInBundle writes every file a plan requires under dir/amd64.
func writeStandInBundle(t testing.TB, dir string) {
	for _, rel := range resources.RequiredBundleFiles() {
		p := filepath.Join(dir, "amd64", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("stand-in\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExamplesPlan loads and plans every example directory, without
// contacting any host, from an empty state: each must be valid and plan
// one host per node.
func TestExamplesPlan(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "examples", "*"))
	if err != nil {
		t.Fatal(err)
	}
	packages := "packages=" + standInBundle(t)
	seen := 0
	for _, dir := range dirs {
		if hcl, _ := filepath.Glob(filepath.Join(dir, "*.hcl")); len(hcl) == 0 {
			continue
		}
		seen++
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			req := Request{
				Dir:       dir,
				StatePath: filepath.Join(t.TempDir(), "eggo.state"),
				Vars:      config.VarInput{Vars: append(exampleVars[name], packages)},
			}
			p, loaded, err := planWith(t, req)
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			nodes := loaded.Config.Cluster.Nodes
			if len(nodes) == 0 {
				t.Fatalf("%s declares no node", dir)
			}
			hosts := 0
			for _, s := range p.Steps {
				if s.Kind == "host" {
					hosts++
				}
			}
			if hosts != len(nodes) {
				t.Fatalf("%s: %d host steps for %d nodes", dir, hosts, len(nodes))
			}
			for _, n := range nodes {
				s := p.Step("host." + n.Name)
				if s == nil || s.Action != "create" {
					t.Fatalf("%s: host.%s is not planned for creation: %+v", dir, n.Name, s)
				}
			}
			if _, err := os.Stat(req.StatePath); !os.IsNotExist(err) {
				t.Fatalf("planning wrote a state file (%v)", err)
			}
		})
	}
	if seen == 0 {
		t.Fatal("no example directory with *.hcl found")
	}
}
