package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportBoundaries keeps dependencies flowing one way:
// command → engine → {graph, resources, state}; resources → providers.
// `make check` runs it; a forbidden import fails the build.
func TestImportBoundaries(t *testing.T) {
	const mod = "github.com/eggo-project/eggo"
	// allowed[pkg prefix] lists the eggo packages it may import (by prefix).
	allowed := map[string][]string{
		"graph":             {},
		"state":             {},
		"state/etcdstate":   {"state"},
		"providers":         {"providers"},
		"resources":         {"resources", "providers"},
		"engine":            {"engine", "graph", "resources", "state"},
		"command":           {"command", "engine", "state", "resources"}, // resources: plan data types only
		"internal/sshd":     {},
		"internal/etcdtest": {},
		"internal/testbed":  {"internal/testbed"},
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, mod), "/")
		if rel == "" {
			continue // main may import anything
		}
		rules, ok := ruleFor(allowed, rel)
		if !ok {
			t.Errorf("package %s has no import rule: add it to TestImportBoundaries", rel)
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if !strings.HasPrefix(imp, mod+"/") {
				if rel == "graph" && strings.Contains(imp, ".") && !strings.HasPrefix(imp, "gonum.org/") {
					t.Errorf("graph imports %s: graph may use only gonum and the standard library", imp)
				}
				continue
			}
			target := strings.TrimPrefix(imp, mod+"/")
			if !hasPrefixAny(target, rules) {
				t.Errorf("forbidden import: %s imports %s (allowed: %v)", rel, target, rules)
			}
		}
	}
}

func ruleFor(allowed map[string][]string, rel string) ([]string, bool) {
	best := ""
	for p := range allowed {
		if (rel == p || strings.HasPrefix(rel, p+"/")) && len(p) > len(best) {
			best = p
		}
	}
	r, ok := allowed[best]
	return r, ok && best != ""
}

func hasPrefixAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if s == p || strings.HasPrefix(s, p+"/") {
			return true
		}
	}
	return false
}
