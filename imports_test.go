package main

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/eggo-project/eggo"

// importRules keep dependencies flowing one way:
// command → engine → {graph, resources, state}; resources → providers.
// A key is a package and everything under it, unless a longer key rules a
// sub-tree; a value lists the eggo packages it may import. "=P" allows P
// itself but nothing under it, so a family may import the resources core
// without thereby importing every other family.
//
// Inside resources/: the core (Kind, Attrs, the Cluster model, RunContext,
// the shared names and the bundle layout) imports no family; each family
// (host, certs, kube, addon, hook) imports the core and libraries
// (pki, hookrun, hookcheck, templates) but no other family. The one declared
// exception: addon builds on kube (it applies its objects through kube's
// kubectl on a master and waits as kube's services do). kinds is the one
// package that lists every family, for the engine.
var importRules = map[string][]string{
	"graph":                   {},
	"state":                   {"internal/atomicfile"},
	"state/etcdstate":         {"state"},
	"state/kubestate":         {"state"},
	"providers":               {"providers"},
	"resources":               {"providers", "resources/pki", "internal/recent"},
	"resources/pki":           {"internal/recent"},
	"resources/templates":     {"providers/shell"}, // shell.Quote, in the scripts it renders
	"resources/hookrun":       {"providers"},
	"resources/hookcheck":     {"providers", "internal/text"}, // internal/text: Plural in its summaries
	"resources/host":          {"=resources", "providers"},
	"resources/certs":         {"=resources", "resources/pki", "providers", "internal/atomicfile"},
	"resources/kube":          {"=resources", "resources/pki", "resources/templates", "providers"},
	"resources/addon":         {"=resources", "resources/kube", "resources/pki", "resources/templates", "providers"},
	"resources/hook":          {"=resources", "resources/hookrun", "resources/hookcheck", "providers"},
	"resources/kinds":         {"=resources", "resources/host", "resources/certs", "resources/kube", "resources/addon"},
	"resources/resourcestest": {"=resources", "providers"}, // providers: the recording transport and shelltest
	// The engine knows kinds through the core's interface; it places and
	// runs hooks, so it knows the hook family and its libraries.
	// internal/text: Plural, shared with command and hookcheck.
	"engine":  {"engine", "graph", "=resources", "resources/kinds", "resources/hook", "resources/hookrun", "resources/hookcheck", "state", "internal/text", "internal/atomicfile"},
	"command": {"command", "engine", "state", "=resources", "resources/hook", "resources/hookrun", "internal/text"}, // resources: plan data types; hook, hookrun: the types a plan shows; internal/text: Plural
	// The engine's end-to-end tests on the testbed (test files only): the
	// engine's Workspace, the kinds they limit a run to and the names they
	// check, the state they read.
	"engine/e2e":          {"engine", "=resources", "resources/host", "resources/kube", "resources/addon", "providers/shell", "state", "internal/testbed"},
	"internal/sshd":       {},
	"internal/benchscale": {"engine", "=resources", "resources/kinds", "state"}, // make bench-scale: builds its clusters' state through eggo's own code
	"internal/etcdtest":   {"internal/testpki", "internal/testproc"},
	"internal/testpki":    {},                                                             // the test harnesses' CAs and certificates
	"internal/statetest":  {"state"},                                                      // what the shared state backends' tests share: a store per test, a lock holder to kill
	"internal/testproc":   {},                                                             // the test harnesses' server processes: start, wait until ready, stop
	"internal/apitest":    {"internal/etcdtest", "internal/testpki", "internal/testproc"}, // a kube-apiserver for tests, over an etcdtest etcd
	"internal/testbed":    {"internal/testbed"},
	// make conformance: runs bin/eggo and the suite as programs; it only
	// brings the testbed up.
	"internal/conformance": {"internal/conformance", "internal/testbed"},
	"internal/text":        {}, // wording helpers (Plural) any package may import
	"internal/atomicfile":  {}, // whole-file replacement: the state, a saved plan, the admin kubeconfig
	"internal/recent":      {}, // a bounded memo of a pure function's recent answers (digests, kubeconfigs)
	// The GitOps controller: its API types, reconciler and Jobs' command
	// (which runs the eggo CLI as a program), built as cmd/eggo-controller.
	"controller":          {"controller"},
	"controller/api":      {},
	"controller/jobrun":   {"controller/api"},
	"cmd/eggo-controller": {"controller"},
	// The GitOps end-to-end test (test files only): the API's names, the
	// testbed; it runs eggo, the controller and kubectl as programs.
	"controller/e2e": {"controller/api", "internal/testbed", "internal/conformance"},
}

// TestImportBoundaries fails on an import the rules forbid; `make check`
// runs it.
func TestImportBoundaries(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, v := range importViolations(string(out), importRules) {
		t.Error(v)
	}
}

// TestCLIWithoutControllerRuntime keeps controller-runtime (and the
// controller) out of the eggo CLI: its start-up and size are measured
// (bin/eggo plan is benchmarked); the controller is bin/eggo-controller.
func TestCLIWithoutControllerRuntime(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "sigs.k8s.io/controller-runtime") || strings.HasPrefix(dep, module+"/controller") {
			t.Errorf("the eggo CLI imports %s: the controller belongs in cmd/eggo-controller", dep)
		}
	}
}

// TestImportBoundariesRefuseAFamilyImport shows the check failing: one
// family importing another, and the core importing a family.
func TestImportBoundariesRefuseAFamilyImport(t *testing.T) {
	list := module + "/resources/certs:" + module + "/resources " + module + "/resources/kube\n" +
		module + "/resources:" + module + "/resources/host\n" +
		module + "/resources/addon:" + module + "/resources/kube\n"
	got := importViolations(list, importRules)
	if len(got) != 2 || !strings.Contains(got[0], "resources/certs imports resources/kube") ||
		!strings.Contains(got[1], "resources imports resources/host") {
		t.Fatalf("violations = %q, want certs → kube and core → host (and addon → kube allowed)", got)
	}
}

// importViolations reads `go list` lines "PKG:IMPORT IMPORT…" and says
// which imports the rules forbid.
func importViolations(list string, rules map[string][]string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		if rel == "" {
			continue // main may import anything
		}
		allowed, ok := ruleFor(rules, rel)
		if !ok {
			out = append(out, "package "+rel+" has no import rule: add it to importRules")
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if !strings.HasPrefix(imp, module+"/") {
				if rel == "graph" && strings.Contains(imp, ".") && !strings.HasPrefix(imp, "gonum.org/") {
					out = append(out, "graph imports "+imp+": graph may use only gonum and the standard library")
				}
				continue
			}
			target := strings.TrimPrefix(imp, module+"/")
			if !allows(allowed, target) {
				out = append(out, "forbidden import: "+rel+" imports "+target+" (allowed: "+strings.Join(allowed, " ")+")")
			}
		}
	}
	return out
}

func ruleFor(rules map[string][]string, rel string) ([]string, bool) {
	best := ""
	for p := range rules {
		if (rel == p || strings.HasPrefix(rel, p+"/")) && len(p) > len(best) {
			best = p
		}
	}
	r, ok := rules[best]
	return r, ok && best != ""
}

// allows reports whether an entry of allowed covers target: "P" is P and
// everything under it, "=P" is P alone.
func allows(allowed []string, target string) bool {
	for _, p := range allowed {
		if exact, ok := strings.CutPrefix(p, "="); ok {
			if target == exact {
				return true
			}
		} else if target == p || strings.HasPrefix(target, p+"/") {
			return true
		}
	}
	return false
}
