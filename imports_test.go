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
	"resources/pki":           {"internal/recent", "internal/text"}, // internal/text: Duration, the form plans show
	"resources/templates":     {"providers/shell"},                  // shell.Quote, in the scripts it renders
	"resources/hookrun":       {"providers"},
	"resources/hookcheck":     {"providers", "internal/text"}, // internal/text: Plural in its summaries
	"resources/host":          {"=resources", "providers"},
	"resources/certs":         {"=resources", "resources/pki", "providers", "internal/atomicfile"},
	"resources/kube":          {"=resources", "resources/pki", "resources/templates", "providers", "internal/text"}, // internal/text: Some, in warnings naming hosts
	"resources/addon":         {"=resources", "resources/kube", "resources/pki", "resources/templates", "providers"},
	"resources/hook":          {"=resources", "resources/hookrun", "resources/hookcheck", "providers"},
	"resources/kinds":         {"=resources", "resources/host", "resources/certs", "resources/kube", "resources/addon"},
	"resources/resourcestest": {"=resources", "providers"}, // providers: the recording transport and shelltest
	// The engine knows kinds through the core's interface; it places and
	// runs hooks, so it knows the hook family and its libraries.
	// internal/text: Plural, shared with command and hookcheck.
	"engine":          {"engine", "graph", "=resources", "resources/kinds", "resources/hook", "resources/hookrun", "resources/hookcheck", "state", "internal/text", "internal/atomicfile"},
	"command":         {"command", "engine", "state", "=resources", "resources/hook", "resources/hookrun", "internal/text"}, // resources: plan data types; hook, hookrun: the types a plan shows; internal/text: Plural, Safe
	"command/jsonmsg": {},
	// The engine's end-to-end tests on the testbed (test files only): the
	// engine's Workspace, the kinds they limit a run to and the names they
	// check, the state they read.
	"engine/e2e": {"engine", "=resources", "resources/host", "resources/kube", "resources/addon", "providers/shell", "state", "internal/harness/nspawntest", "internal/harness/eggotest", "tools/conformance"},
	// The test harnesses (imported by tests only; no product package may,
	// TestNoProductPackageImportsAHarnessOrATool), named like httptest.
	"internal/harness/sshdtest":   {}, // real OpenSSH servers
	"internal/harness/eggotest":   {}, // the eggo binary of this checkout, built once per test binary; make bundle's bundle
	"internal/harness/pkitest":    {}, // the harnesses' CAs and certificates
	"internal/harness/proctest":   {}, // a harness's server process: start, wait until ready, stop
	"internal/harness/etcdtest":   {"internal/harness/pkitest", "internal/harness/proctest"},
	"internal/harness/apitest":    {"internal/harness/etcdtest", "internal/harness/pkitest", "internal/harness/proctest"}, // a kube-apiserver over an etcdtest etcd
	"internal/harness/nspawntest": {"internal/harness/nspawntest"},                                                        // the testbed: systemd hosts in network namespaces
	"state/statetest":             {"state"},                                                                              // what the shared state backends' tests share: a store per test, a lock holder to kill
	// Tools build or measure; they never ship. make bench-scale builds its
	// clusters' state through eggo's own code; make conformance runs
	// bin/eggo and the suite as programs and only brings the testbed up;
	// the testbed command is the demo's and make testbed-down's; make
	// upgrade-chain runs bin/eggo and kubectl on a testbed it brings up.
	"tools/upgradechain":  {"internal/harness/nspawntest"},
	"tools/benchscale":    {"engine", "=resources", "resources/kinds", "state"},
	"tools/conformance":   {"tools/conformance", "=resources", "internal/harness/nspawntest"},
	"tools/testbed":       {"internal/harness/nspawntest"},
	"internal/text":       {}, // wording helpers (Plural) and terminal safety (Safe) any package may import
	"internal/atomicfile": {}, // whole-file replacement: the state, a saved plan, the admin kubeconfig
	"internal/recent":     {}, // a bounded memo of a pure function's recent answers (digests, kubeconfigs)
	// The GitOps controller: its API types, reconciler and Jobs' command
	// (which runs the eggo CLI as a program and reads its -json messages,
	// command/jsonmsg: no eggo package, the standard library only),
	// built as cmd/eggo-controller.
	"controller":          {"controller"},
	"controller/api":      {},
	"controller/jobrun":   {"controller/api", "command/jsonmsg"}, // jsonmsg: the messages of the eggo CLI it runs
	"cmd/eggo-controller": {"controller"},
	// The GitOps end-to-end test (test files only): the API's names, the
	// testbed; it runs eggo, the controller and kubectl as programs.
	"controller/e2e": {"controller/api", "=resources", "internal/harness/nspawntest", "tools/conformance"}, // resources: the minors' images
}

// externalRules limit what a package imports from outside eggo (the
// standard library is always allowed; a value lists the path prefixes
// allowed besides): graph keeps gonum inside, and the -json messages stay
// free of any module for the programs that read them. A package not
// listed may import any module.
var externalRules = map[string][]string{
	"graph":           {"gonum.org/"},
	"command/jsonmsg": {},
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

// TestNoProductPackageImportsAHarnessOrATool keeps what ships apart from
// what tests it and what builds or measures it: no package outside the
// harnesses, the tools and the end-to-end tests imports a test harness
// (internal/harness, a family's …test package) or a tool.
func TestNoProductPackageImportsAHarnessOrATool(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, v := range harnessViolations(string(out)) {
		t.Error(v)
	}
	bad := module + "/engine:" + module + "/internal/harness/sshdtest " + module + "/state\n" +
		module + "/command:" + module + "/tools/conformance\n" +
		module + "/resources/host:" + module + "/resources/resourcestest\n" +
		module + "/tools/conformance:" + module + "/internal/harness/nspawntest\n"
	if got := harnessViolations(bad); len(got) != 3 {
		t.Errorf("harnessViolations(engine → sshdtest, command → tools, host → resourcestest, a tool → a harness) = %q, want the first three", got)
	}
}

// isTestOrTool: a harness, a tool or an end-to-end test package.
func isTestOrTool(rel string) bool {
	return strings.HasPrefix(rel, "internal/harness/") || strings.HasPrefix(rel, "tools/") ||
		strings.HasSuffix(rel, "test") || strings.HasSuffix(rel, "/e2e")
}

func harnessViolations(list string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		if rel == "" || isTestOrTool(rel) {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if target, ok := strings.CutPrefix(imp, module+"/"); ok && isTestOrTool(target) {
				out = append(out, "product package "+rel+" imports "+target+", a test harness or a tool")
			}
		}
	}
	return out
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

// TestImportBoundariesRefuseAModuleInJSONMessages shows externalRules
// failing: the -json messages importing a module or an eggo package.
func TestImportBoundariesRefuseAModuleInJSONMessages(t *testing.T) {
	list := module + "/command/jsonmsg:encoding/json github.com/hashicorp/hcl/v2 " + module + "/resources\n" +
		module + "/graph:gonum.org/v1/gonum/graph sort\n" +
		module + "/controller/jobrun:" + module + "/command/jsonmsg " + module + "/controller/api/v1alpha1\n"
	got := importViolations(list, importRules)
	if len(got) != 2 || !strings.Contains(got[0], "command/jsonmsg imports github.com/hashicorp/hcl/v2") ||
		!strings.Contains(got[1], "command/jsonmsg imports resources") {
		t.Fatalf("violations = %q, want jsonmsg → hcl and jsonmsg → resources (and graph → gonum, jobrun → jsonmsg allowed)", got)
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
				if v := externalViolation(rel, imp); v != "" {
					out = append(out, v)
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

// externalViolation says why externalRules forbid pkg's import of imp, a
// path outside eggo ("" if they allow it).
func externalViolation(pkg, imp string) string {
	allowed, ok := externalRules[pkg]
	first, _, _ := strings.Cut(imp, "/")
	if !ok || !strings.Contains(first, ".") {
		return "" // not ruled, or the standard library
	}
	for _, p := range allowed {
		if strings.HasPrefix(imp, p) {
			return ""
		}
	}
	return pkg + " imports " + imp + ": " + pkg + " may use only the standard library" + strings.Join(append([]string{""}, allowed...), " and ")
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
