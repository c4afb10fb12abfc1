package kube

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// The programs of every bundle `make bundle` builds take what eggo writes
// for that bundle's minor: each component's command line (its flags
// parsed, as the unit passes them; a static pod's command is the same
// list) and its configuration files (the kubelet's and kube-proxy's
// validated, containerd's read in its schema). No cluster is booted: each
// program runs with --version, or as nobody until it fails on what only a
// host has, which it reaches only past its configuration's checks.
func TestBundledProgramsAcceptWhatEggoWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the bundles' programs: not with -short")
	}
	for _, version := range defaultBundleVersions(t) {
		t.Run(version, func(t *testing.T) {
			bundle := bundleFor(t, version)
			c := podCluster("10.244.0.0/16", nil, "w0")
			c.KubernetesVersion, c.Packages = strings.TrimPrefix(version, "v"), bundle
			c.Network.ServiceCIDR = "10.32.0.0/16"
			c.Runtime.CgroupRootPerNode = true
			c.Runtime.EvictionHard = map[string]string{"memory.available": "100Mi"}
			c.Runtime.RegistryMirrors = map[string][]string{"registry.k8s.io": {"http://10.77.0.1:5000"}}
			ds, err := componentServices(c)
			if err != nil {
				t.Fatal(err)
			}
			members, err := EtcdMember{}.Expand(c)
			if err != nil {
				t.Fatal(err)
			}
			checked := map[string]bool{}
			for _, d := range append(ds, members...) {
				s := parseService(d.Attrs)
				if checked[s.Component] || s.Unit == "" || !strings.HasPrefix(execStart(t, s.Unit)[0], "/usr/local/bin/") {
					continue // one node's of each; haproxy is the host's own
				}
				checked[s.Component] = true
				acceptsWhatEggoWrites(t, c, bundle, s)
			}
			for _, comp := range []string{resources.CompEtcd, resources.CompAPIServer, resources.CompControllerManager, resources.CompScheduler,
				resources.CompContainerd, resources.CompKubelet, resources.CompKubeProxy} {
				if !checked[comp] {
					t.Errorf("%s was not checked", comp)
				}
			}
		})
	}
}

// acceptsWhatEggoWrites runs one service's program from the bundle with
// its unit's arguments, its files written to a temporary directory.
func acceptsWhatEggoWrites(t *testing.T, c *resources.Cluster, bundle string, s service) {
	t.Helper()
	argv := execStart(t, s.Unit)
	program := filepath.Join(bundle, "amd64", argv[0])
	args := argv[1:]
	// Not under t.TempDir, whose parent only root may enter: nobody
	// reads the files.
	dir, err := os.MkdirTemp("", "eggo-accepts-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Files {
		content, ok := f.Content.(string)
		if !ok {
			continue // a certificate or key: the programs below stop before they read one
		}
		local := filepath.Join(dir, strings.ReplaceAll(strings.TrimPrefix(f.Path, "/"), "/", "_"))
		if err := os.WriteFile(local, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, f.Path, local)
		}
	}
	run := func(asNobody bool, extra ...string) string {
		cmd := exec.Command(program, append(append([]string{}, args...), extra...)...)
		if asNobody && os.Geteuid() == 0 {
			cmd = exec.Command("setpriv", append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", program}, cmd.Args[1:]...)...)
		}
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	want := func(out string, ok bool, what string) {
		t.Helper()
		if !ok {
			t.Errorf("%s %s: %s\nits arguments: %q\nits output:\n%s", s.Component, c.KubernetesVersion, what, args, out)
		}
	}
	switch s.Component {
	case resources.CompEtcd:
		out := run(false, "--version")
		want(out, strings.HasPrefix(out, "etcd Version: "), "does not take its flags")
	case resources.CompAPIServer, resources.CompControllerManager, resources.CompScheduler:
		out := run(false, "--version")
		want(out, out == "Kubernetes v"+c.KubernetesVersion+"\n", "does not take its flags")
	case resources.CompKubelet:
		// Past its flags and its configuration's validation, a kubelet
		// that is not root fails to make its directories (1.31), or to
		// find the kubeconfig only a host has (1.36).
		out := run(true)
		past := strings.Contains(out, "failed to construct kubelet dependencies") ||
			strings.Contains(out, "invalid kubeconfig: stat "+filepath.Join(c.ConfigDir, resources.CompKubelet, "kubeconfig"))
		want(out, past && !strings.Contains(out, "strict decoding"), "does not take its flags and configuration")
	case resources.CompKubeProxy:
		// Past its configuration's validation, it looks for the
		// kubeconfig the configuration names, which only a host has.
		out := run(true)
		want(out, strings.Contains(out, "stat "+filepath.Join(c.ConfigDir, resources.CompKubeProxy, "kubeconfig")+": no such file") && !strings.Contains(out, "strict decoding"),
			"does not take its flags and configuration")
	case resources.CompContainerd:
		// Read in its schema, containerd's dump of it names the sandbox
		// image eggo set and the registry host directory of the mirrors
		// (a key of another schema would be dropped).
		out := run(false, "config", "dump")
		sandbox := regexp.MustCompile(`\n\s*sandbox(_image)? = ["']` + regexp.QuoteMeta(c.Minor().Pause) + `["']\n`)
		want(out, sandbox.MatchString(out), "does not read the sandbox image from its configuration")
		hosts := regexp.MustCompile(`\n\s*config_path = ["']` + regexp.QuoteMeta(containerdHostsDir(c)) + `["']\n`)
		want(out, hosts.MatchString(out), "does not read the registry mirrors' config_path from its configuration")
	case resources.CompFlannel:
		out := run(false, "--version")
		want(out, strings.HasPrefix(out, "v"), "does not take its flags")
	default:
		t.Errorf("%s: no check for it", s.Component)
	}
}

// execStart is a unit's command line as systemd splits it (the subset
// unitArg writes: bare words, and double-quoted ones with \\ \" $$ %%
// escaped); %m, the machine ID, reads as "test".
func execStart(t *testing.T, unit string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(unit, "\nExecStart=")
	if !ok {
		t.Fatalf("no ExecStart in\n%s", unit)
	}
	line, _, _ := strings.Cut(strings.ReplaceAll(rest, " \\\n  ", " "), "\n")
	var argv []string
	for _, w := range regexp.MustCompile(`"(?:[^"\\]|\\.)*"|\S+`).FindAllString(line, -1) {
		if strings.HasPrefix(w, `"`) {
			w = strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\n`, "\n", `\t`, "\t").Replace(w[1 : len(w)-1])
		}
		argv = append(argv, strings.NewReplacer("$$", "$", "%%", "%", "%m", "test").Replace(w))
	}
	return argv
}

// defaultBundleVersions are the versions `make bundle` builds by default
// (bundle.mk's BUNDLE_VERSIONS).
func defaultBundleVersions(t *testing.T) []string {
	t.Helper()
	mk, err := os.ReadFile("../../bundle.mk")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^BUNDLE_VERSIONS\s*\?=\s*(.+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("no BUNDLE_VERSIONS ?= in bundle.mk")
	}
	return strings.Fields(string(m[1]))
}

// bundleFor is make bundle's bundle of a version, under $EGGO_BUNDLE_DIR or
// /var/cache/eggo/bundle.
func bundleFor(t *testing.T, version string) string {
	t.Helper()
	root := os.Getenv("EGGO_BUNDLE_DIR")
	if root == "" {
		root = "/var/cache/eggo/bundle"
	}
	d := filepath.Join(root, version)
	if _, err := os.Stat(filepath.Join(d, "MANIFEST")); err != nil {
		t.Fatalf("no bundle at %s: run `make bundle` first", d)
	}
	return d
}
