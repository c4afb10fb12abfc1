package nspawntest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclparse"
)

func TestOptionsNames(t *testing.T) {
	got, err := Options{N: 3}.names()
	if err != nil || !slices.Equal(got, []string{"m0", "m1", "m2"}) {
		t.Errorf("N=3: %v %v", got, err)
	}
	for _, bad := range []Options{{}, {Names: []string{"a", "a"}}, {Names: []string{"Upper"}}, {Names: []string{"-x"}}, {Names: []string{strings.Repeat("a", 51)}}, {N: 250}} {
		if _, err := bad.names(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestSubnetsAndNames(t *testing.T) {
	p, err := parseSubnet("10.77.3.0/24")
	if err != nil {
		t.Fatal(err)
	}
	if got := hostAddr(p, firstNodeOctet).String(); got != "10.77.3.11" {
		t.Errorf("first node address %s", got)
	}
	for _, bad := range []string{"10.77.3.1/24", "10.77.0.0/16", "fd00::/64", "nonsense"} {
		if _, err := parseSubnet(bad); err == nil {
			t.Errorf("subnet %q accepted", bad)
		}
	}
	// Linux link names are at most 15 bytes; the longest id and a
	// three-digit node index must fit.
	if l := vethName("abcdefgh", 242); len(l) > 15 {
		t.Errorf("veth name %q too long", l)
	}
	if b := bridgeName("abcdefgh"); len(b) > 15 {
		t.Errorf("bridge name %q too long", b)
	}
}

func TestNspawnArgsContainers(t *testing.T) {
	n := nodeRecord{Name: "m0", Netns: "eggo-x-m0", Merged: "/r/x/nodes/m0/root"}
	d := dirsFor("/r/x", "m0")
	plain := strings.Join(nspawnArgs(n, d, &record{}), " ")
	if strings.Contains(plain, "--capability") || strings.Contains(plain, "containerd") {
		t.Errorf("plain node gets container settings: %s", plain)
	}
	for _, want := range []string{"--boot", "--register=no", "--keep-unit", "--network-namespace-path=/run/netns/eggo-x-m0", "--resolv-conf=off"} {
		if !strings.Contains(plain, want) {
			t.Errorf("missing %s in %s", want, plain)
		}
	}
	full := strings.Join(nspawnArgs(n, d, &record{Containers: true, ReadOnlyBinds: map[string]string{"/srv/b": "/var/cache/b", "/srv/a": "/x"}}), " ")
	for _, want := range []string{"--capability=all", "--bind=/sys/fs/cgroup", "--bind=/dev/kmsg", "--system-call-filter=keyctl add_key request_key", "--bind=/r/x/nodes/m0/containerd:/var/lib/containerd",
		"--bind-ro=/x:/srv/a --bind-ro=/var/cache/b:/srv/b"} {
		if !strings.Contains(full, want) {
			t.Errorf("containers node lacks %s: %s", want, full)
		}
	}
	if env := strings.Join(nspawnEnv(true), " "); !strings.Contains(env, "SYSTEMD_NSPAWN_API_VFS_WRITABLE=1") {
		t.Error("containers node lacks SYSTEMD_NSPAWN_API_VFS_WRITABLE")
	}
}

func TestWriteInventory(t *testing.T) {
	dir := t.TempDir()
	tb := fromRecord(&record{ID: "demo", Dir: "/run/eggo-testbed/demo", Subnet: "10.77.0.0/24", Nodes: []nodeRecord{
		{Name: "m0", Address: "10.77.0.11"}, {Name: "worker-1", Address: "10.77.0.12"},
	}})
	hclPath, err := tb.WriteInventory(filepath.Join(dir, "inv.json"))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "inv.json"))
	var inv Inventory
	if err := json.Unmarshal(data, &inv); err != nil {
		t.Fatal(err)
	}
	if len(inv.Hosts) != 2 || inv.Hosts[1].Address != "10.77.0.12" || inv.Hosts[0].KeyFile != "/run/eggo-testbed/demo/id_ed25519" ||
		inv.Hosts[0].KnownHostsFile != "/run/eggo-testbed/demo/known_hosts" || inv.Hosts[0].User != "root" || inv.Hosts[0].Port != 22 {
		t.Errorf("inventory JSON: %+v", inv)
	}
	if hclPath != filepath.Join(dir, "inv.eggovars") {
		t.Errorf("HCL path %s", hclPath)
	}
	f, diags := hclparse.NewParser().ParseHCLFile(hclPath)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	attrs, diags := f.Body.JustAttributes()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	nodes, diags := attrs["nodes"].Expr.Value(nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := nodes.GetAttr("worker-1").AsString(); got != "10.77.0.12" {
		t.Errorf("nodes[worker-1] = %s", got)
	}
	if _, ok := attrs["ssh_private_key_file"]; !ok {
		t.Error("HCL lacks ssh_private_key_file")
	}
}

func TestMountinfoUnescape(t *testing.T) {
	if got := unescapeMount(`/run/a\040b`); got != "/run/a b" {
		t.Errorf("got %q", got)
	}
}
