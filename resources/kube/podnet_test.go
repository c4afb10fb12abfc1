package kube

import (
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// fakeIptables keeps each chain's rules in a file ($IPT_STATE/TABLE.CHAIN),
// enough of iptables for the routes script: -N -S -C -A -D -F -X.
const fakeIptables = `#!/bin/sh
t=filter
if [ "$1" = -t ]; then t=$2; shift 2; fi
op=$1 c=$2; shift 2
f=$IPT_STATE/$t.$c
rule="$*"
case $op in
  -N) [ ! -e "$f" ] || exit 1; : > "$f" ;;
  -S) [ -e "$f" ] || exit 1; echo "-N $c"; sed "s/^/-A $c /" "$f" ;;
  -C) [ -e "$f" ] && grep -qxF -- "$rule" "$f" ;;
  -A) echo "$rule" >> "$f" ;;
  -D) [ -e "$f" ] && grep -qxF -- "$rule" "$f" || exit 1; grep -vxF -- "$rule" "$f" > "$f.new" || true; mv "$f.new" "$f" ;;
  -F) [ -e "$f" ] && : > "$f" ;;
  -X) [ -e "$f" ] && [ ! -s "$f" ] && rm "$f" ;;
  *) exit 2 ;;
esac
`

// runInNetns runs a shell script as root in a new network namespace with
// the fake iptables first on PATH.
func runInNetns(t *testing.T, dir, script string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for a network namespace")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip")
	}
	bin := filepath.Join(dir, "bin")
	state := filepath.Join(dir, "ipt")
	for _, d := range []string{bin, state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "iptables"), []byte(fakeIptables), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("unshare", "-n", "sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "IPT_STATE="+state)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return string(out)
}

// The routes script converges a host: routes to the other workers with
// eggo's mark, stale eggo routes gone, an operator's routes untouched, one
// masquerade rule, forwarding on; the cleanup undoes exactly that.
func TestPodRoutesScriptOnAHost(t *testing.T) {
	dir := t.TempDir()
	c := podCluster("10.244.0.0/16", map[string]string{"w0": "10.244.0.0/24", "w1": "10.244.3.0/24", "w2": "10.244.1.0/24"}, "w0", "w1", "w2")
	subnets, err := PodSubnets(c)
	if err != nil {
		t.Fatal(err)
	}
	cidr := netip.MustParsePrefix("10.244.0.0/16")
	fam := familyOf(cidr)
	w0, _ := c.NodeNamed("w0")
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := func(c *resources.Cluster, n resources.Node, subnets map[string]string) string {
		s, err := podRoutesScript(c, n, cidr, fam, subnets)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	write("routes.sh", script(c, w0, subnets))
	write("cleanup.sh", podRoutesCleanup(fam))
	// A worker behind a router cannot be routed to directly.
	far := podCluster("10.244.0.0/16", nil, "w0")
	far.Nodes = append(far.Nodes, resources.Node{Name: "w9", Address: "10.98.0.5", Roles: []string{"worker"}})
	farSubnets, _ := PodSubnets(far)
	write("far.sh", script(far, far.Nodes[1], farSubnets))

	out := runInNetns(t, dir, `
ip link set lo up
ip link add eth0 type veth peer name peer0 && ip link set peer0 up
ip addr add 10.0.0.2/24 dev eth0 && ip link set eth0 up
ip route add default via 10.0.0.1
ip route add 10.200.0.0/24 via 10.0.0.9               # the operator's own
ip route add 10.244.9.0/24 via 10.0.0.5 proto 77      # eggo's, for a worker since removed
echo 0 > /proc/sys/net/ipv4/ip_forward
sh routes.sh check 2>&1 && echo "CHECK-BEFORE ok" || echo "CHECK-BEFORE failed"
sh routes.sh up
sh routes.sh up
sh routes.sh check && echo "CHECK-AFTER ok"
echo "FORWARD $(cat /proc/sys/net/ipv4/ip_forward)"
ip -4 route show | sed 's/^/ROUTE /'
for f in ipt/*; do [ ! -e "$f" ] || sed "s|^|RULE ${f#ipt/} |" "$f"; done
sh cleanup.sh
echo "CLEANED"
echo "FORWARD $(cat /proc/sys/net/ipv4/ip_forward)"
ip -4 route show | sed 's/^/ROUTE /'
for f in ipt/*; do [ ! -e "$f" ] || sed "s|^|RULE ${f#ipt/} |" "$f"; done
ip route add 10.244.3.0/24 via 10.0.0.7               # the operator took a worker's subnet
sh routes.sh up 2>&1 || echo "UP-REFUSED"
ip route show proto 77 | sed 's/^/LEFT /'
sh far.sh up 2>&1 || echo "FAR-REFUSED"
`)
	before, after, _ := strings.Cut(out, "CLEANED")
	for _, want := range []string{
		"CHECK-BEFORE failed", "CHECK-AFTER ok", "FORWARD 1",
		"ROUTE 10.244.1.0/24 via 10.0.0.4 dev eth0 proto 77",
		"ROUTE 10.244.3.0/24 via 10.0.0.3 dev eth0 proto 77",
		"ROUTE 10.200.0.0/24 via 10.0.0.9 dev eth0",
		"RULE nat.EGGO-POD-MASQ -s 10.244.0.0/24 ! -d 10.244.0.0/16 -j MASQUERADE\n",
		"RULE nat.POSTROUTING -j EGGO-POD-MASQ\n",
		"RULE filter.EGGO-POD-FWD -s 10.244.0.0/16 -j ACCEPT\nRULE filter.EGGO-POD-FWD -d 10.244.0.0/16 -j ACCEPT\n",
		"RULE filter.FORWARD -j EGGO-POD-FWD\n",
	} {
		if !strings.Contains(before, want) {
			t.Errorf("after up, missing %q in:\n%s", want, before)
		}
	}
	for _, gone := range []string{"10.244.9.0/24", "10.244.0.0/24 via", "RULE nat.POSTROUTING -j EGGO-POD-MASQ\nRULE nat.POSTROUTING -j EGGO-POD-MASQ"} {
		if strings.Contains(before, gone) {
			t.Errorf("after up, %q should not be there:\n%s", gone, before)
		}
	}
	for _, want := range []string{"FORWARD 0", "ROUTE 10.200.0.0/24 via 10.0.0.9", "ROUTE default via 10.0.0.1",
		"a route to 10.244.3.0/24 (the pods of worker w1) exists that eggo did not add", "UP-REFUSED",
		"worker w9 (10.98.0.5) is behind a router", "FAR-REFUSED"} {
		if !strings.Contains(after, want) {
			t.Errorf("after cleanup, missing %q in:\n%s", want, after)
		}
	}
	if strings.Contains(after, "RULE") || strings.Contains(after, "proto 77\nLEFT") {
		t.Errorf("cleanup left eggo's rules or routes:\n%s", after)
	}
}

// A worker joining changes every other worker's routes script (so the
// service kind restarts their oneshots) and no worker's unit.
func TestPodRoutesFollowWorkers(t *testing.T) {
	files := func(c *resources.Cluster) (map[string]string, map[string]string) {
		ds, err := componentServices(c)
		if err != nil {
			t.Fatal(err)
		}
		scripts, units := map[string]string{}, map[string]string{}
		for _, d := range ds {
			if s := parseService(d.Attrs); s.Component == resources.CompPodRoutes {
				scripts[d.Node] = s.Files[0].Content.(string)
				units[d.Node] = s.Unit
				if strings.Join(d.DependsOn, " ") != "host."+d.Node+" "+resources.ServiceAddr(resources.CompContainerd, d.Node) || d.Roll != nil {
					t.Errorf("%s: depends on %v, roll %v", d.Addr, d.DependsOn, d.Roll)
				}
				if !strings.Contains(s.Unit, "Type=oneshot\nRemainAfterExit=yes\nExecStart=/bin/sh /etc/kubernetes/eggo-pod-routes/routes.sh up\n") ||
					!strings.Contains(s.Unit, "After=network-online.target containerd.service") || strings.Contains(s.Unit, "Restart=") {
					t.Errorf("%s: unit\n%s", d.Addr, s.Unit)
				}
				if s.Health != "/bin/sh '/etc/kubernetes/eggo-pod-routes/routes.sh' check" || !strings.Contains(s.Cleanup, "ip -4 route flush proto 77") {
					t.Errorf("%s: health %q cleanup %q", d.Addr, s.Health, s.Cleanup)
				}
			}
		}
		return scripts, units
	}
	before, unitsBefore := files(podCluster("10.244.0.0/16", nil, "w0", "w1"))
	after, unitsAfter := files(podCluster("10.244.0.0/16", map[string]string{"w0": "10.244.0.0/24", "w1": "10.244.1.0/24"}, "w0", "w1", "w2"))
	for _, w := range []string{"w0", "w1"} {
		if before[w] == after[w] {
			t.Errorf("%s's routes script did not change when w2 joined", w)
		}
		if !strings.Contains(after[w], "10.244.2.0/24 10.0.0.4 w2\n") {
			t.Errorf("%s has no route to w2:\n%s", w, after[w])
		}
		if unitsBefore[w] != unitsAfter[w] {
			t.Errorf("%s's unit changed", w)
		}
	}
}
