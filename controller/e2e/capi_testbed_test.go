package e2e_test

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/eggo-project/eggo/internal/harness/nspawntest"
)

// capiVersion is the Cluster API release make capi-parts builds.
const capiVersion = "v1.14.2"

// capiParts is what make capi-parts built: clusterctl, core's image and
// its clusterctl repository.
type capiParts struct {
	dir        string
	clusterctl string
	coreImage  string // images/cluster-api-controller.tar
}

// findCAPIParts finds make capi-parts's directory (EGGO_CAPI_PARTS, which
// make test sets, else the default cache's). make test builds it first: a
// missing part is a failure, never a skip.
func findCAPIParts(t *testing.T) capiParts {
	t.Helper()
	dir := cmp.Or(os.Getenv("EGGO_CAPI_PARTS"), "/var/cache/eggo/capi/"+capiVersion)
	p := capiParts{dir: dir, clusterctl: filepath.Join(dir, "bin", "clusterctl"), coreImage: filepath.Join(dir, "images", "cluster-api-controller.tar")}
	for _, f := range []string{p.clusterctl, p.coreImage, filepath.Join(dir, "repo", "cluster-api", capiVersion, "core-components.yaml")} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("Cluster API's parts: %v (make capi-parts builds them; make test does first)", err)
		}
	}
	return p
}

// clusterctl runs clusterctl with the test's repository and configuration
// (HOME is the repository: nothing of the user's, no GitHub).
type clusterctl struct {
	t          *testing.T
	bin        string
	config     string
	home       string
	kubeconfig string
	env        []string
}

// newClusterctl writes the clusterctl repository — core from make
// capi-parts, eggo's three providers and eggo-certs from capi/hack/components
// with eggo's image — and the clusterctl.yaml that names it.
func newClusterctl(t *testing.T, parts capiParts, repo, image, kubeconfig string) clusterctl {
	t.Helper()
	home := t.TempDir()
	local := filepath.Join(home, "repo")
	gen := exec.Command("go", "run", "./hack/components", "-out", local, "-image", image)
	gen.Dir = filepath.Join(repo, "capi")
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("capi/hack/components: %v\n%s", err, out)
	}
	if err := os.Symlink(filepath.Join(parts.dir, "repo", "cluster-api"), filepath.Join(local, "cluster-api")); err != nil {
		t.Fatal(err)
	}
	url := func(p string) string { return "file://" + filepath.Join(local, p) }
	cfg := filepath.Join(home, "clusterctl.yaml")
	writeFile(t, cfg, fmt.Sprintf(`providers:
- {name: cluster-api, type: CoreProvider, url: %q}
- {name: eggo, type: InfrastructureProvider, url: %q}
- {name: eggo, type: BootstrapProvider, url: %q}
- {name: eggo, type: ControlPlaneProvider, url: %q}
cert-manager:
  url: %q
  version: v1.21.1
CLUSTERCTL_DISABLE_VERSIONCHECK: "true"
`, url("cluster-api/"+capiVersion+"/core-components.yaml"),
		url("infrastructure-eggo/v0.1.0/infrastructure-components.yaml"),
		url("bootstrap-eggo/v0.1.0/bootstrap-components.yaml"),
		url("control-plane-eggo/v0.1.0/control-plane-components.yaml"),
		url("cert-manager/v1.21.1/cert-manager.yaml")))
	return clusterctl{t: t, bin: parts.clusterctl, config: cfg, home: home, kubeconfig: kubeconfig, env: []string{"EGGO_IMAGE=" + image}}
}

func (c clusterctl) run(env []string, args ...string) string {
	c.t.Helper()
	cmd := exec.Command(c.bin, append(args, "--config", c.config, "--kubeconfig", c.kubeconfig)...)
	cmd.Env = append(append(os.Environ(), "HOME="+c.home), append(c.env, env...)...)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		c.t.Fatalf("clusterctl %s: %v\n%s\n%s", strings.Join(args, " "), err, out, stderr)
	}
	return string(out)
}

// hostKeys reads each testbed host's ed25519 host key from the testbed's
// known_hosts ("name,address key-type key").
func hostKeys(t *testing.T, tb *nspawntest.Testbed) map[string]string {
	t.Helper()
	f, err := os.Open(tb.Hosts[0].KnownHostsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || fields[1] != "ssh-ed25519" {
			continue
		}
		for _, name := range strings.Split(fields[0], ",") {
			keys[name] = fields[1] + " " + fields[2]
		}
	}
	return keys
}

// yamlDocs splits a stream of YAML documents into objects.
func yamlDocs(t *testing.T, stream string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, doc := range strings.Split(stream, "\n---\n") {
		if strings.TrimSpace(doc) == "" || strings.TrimSpace(doc) == "---" {
			continue
		}
		var o map[string]any
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatalf("%v in:\n%s", err, doc)
		}
		if o != nil {
			out = append(out, o)
		}
	}
	return out
}

// jsonDocs is objects as kubectl apply -f - reads them (a List).
func jsonDocs(t *testing.T, objs []map[string]any) string {
	t.Helper()
	items := make([]any, len(objs))
	for i, o := range objs {
		items[i] = o
	}
	b, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// path walks nested maps, making them as needed, and returns the last.
func path(o map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		next, ok := o[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			o[k] = next
		}
		o = next
	}
	return o
}
