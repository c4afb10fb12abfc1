package nspawntest

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTwoNetworks boots a node on each of two networks and checks that they
// reach each other through the router namespace and only through it, that
// this machine reaches both and still does not forward, that a VXLAN
// overlay (flannel's backend) works between them, and that a crash's
// leftovers of all this are found and removed.
func TestTwoNetworks(t *testing.T) {
	forwardBefore := readTrimmed(t, "/proc/sys/net/ipv4/ip_forward")
	root, err := os.MkdirTemp("/run", "eggo-testbed-2net-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	// Containers: the VXLAN link needs CAP_NET_ADMIN in the node, which
	// only container-ready nodes (where flannel would run) have.
	tb := UpForTestWith(t, Options{Names: []string{"a", "b"}, Networks: 2, NetworkOf: map[string]int{"b": 1},
		Containers: true, RunRoot: root})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a, b := tb.Hosts[0], tb.Hosts[1]
	nets := tb.Networks()

	t.Run("placement", func(t *testing.T) {
		if len(nets) != 2 || nets[0].Subnet == nets[1].Subnet {
			t.Fatalf("networks %+v, want two different subnets", nets)
		}
		for i, h := range []Host{a, b} {
			if h.Network != i || h.Subnet != nets[i].Subnet || !netip.MustParsePrefix(h.Subnet).Contains(netip.MustParseAddr(h.Address)) {
				t.Errorf("host %+v, want network %d (%s)", h, i, nets[i].Subnet)
			}
		}
	})

	t.Run("this machine reaches both", func(t *testing.T) {
		for i, h := range []Host{a, b} {
			if !bridgeHasAddr(nets[i].Bridge, nets[i].Gateway) {
				t.Errorf("bridge %s lacks this machine's %s", nets[i].Bridge, nets[i].Gateway)
			}
			if out, err := tb.Exec(ctx, h.Name, "hostname"); err != nil || out != h.Name+"\n" {
				t.Errorf("ssh to %s (%s): %q %v", h.Name, h.Address, out, err)
			}
		}
	})

	t.Run("across the router", func(t *testing.T) {
		for _, p := range [][2]Host{{a, b}, {b, a}} {
			checkRouted(ctx, t, tb, p[0], p[1])
		}
	})

	t.Run("only through the router", func(t *testing.T) {
		// Unplug the router from b's network: a loses b, and gets it back.
		leg := "eth1"
		if err := run(ctx, "ip", "-n", tb.rec.Router, "link", "set", leg, "down"); err != nil {
			t.Fatal(err)
		}
		if banner := sshBannerFrom(ctx, t, tb, a.Name, b.Name); banner != "" {
			t.Errorf("%s still reaches %s with the router's %s down: %q", a.Name, b.Name, leg, banner)
		}
		if err := run(ctx, "ip", "-n", tb.rec.Router, "link", "set", leg, "up"); err != nil {
			t.Fatal(err)
		}
		if !eventually(5*time.Second, func() bool { return sshBannerFrom(ctx, t, tb, a.Name, b.Name) != "" }) {
			t.Errorf("%s does not reach %s after the router's %s is up again", a.Name, b.Name, leg)
		}
	})

	t.Run("vxlan overlay", func(t *testing.T) { checkVXLAN(ctx, t, tb, a, b) })

	t.Run("forwarding only in the router", func(t *testing.T) {
		if got := readTrimmed(t, "/proc/sys/net/ipv4/ip_forward"); got != forwardBefore {
			t.Errorf("this machine's ip_forward went from %s to %s", forwardBefore, got)
		}
		out, err := output(ctx, "ip", "netns", "exec", tb.rec.Router, "cat", "/proc/sys/net/ipv4/ip_forward")
		if err != nil || out != "1\n" {
			t.Errorf("router's ip_forward = %q %v, want 1", out, err)
		}
	})

	t.Run("down after a crash leaves nothing", func(t *testing.T) {
		// The record is lost: only names lead to the router and the
		// second bridge.
		if err := os.Remove(filepath.Join(tb.Dir, recordFile)); err != nil {
			t.Fatal(err)
		}
		if err := DownAllIn(root); err != nil {
			t.Fatal(err)
		}
		assertNothingLeft(t, tb.ID, tb.Dir)
		for _, n := range nets {
			if linkExists(n.Bridge) {
				t.Errorf("bridge %s left", n.Bridge)
			}
		}
		if _, err := os.Stat(filepath.Join("/run/netns", routerNetns(tb.ID))); !os.IsNotExist(err) {
			t.Errorf("router namespace %s left (%v)", routerNetns(tb.ID), err)
		}
	})
}

// checkRouted: from reaches to's sshd by name and answers a ping, the route
// goes via the router's address on from's network, and an echo with TTL 1
// expires at that address (traceroute's first hop).
func checkRouted(ctx context.Context, t *testing.T, tb *Testbed, from, to Host) {
	t.Helper()
	router := tb.Networks()[from.Network].Router
	out, err := tb.Exec(ctx, from.Name, "ip route get "+to.Address)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "via "+router+" ") {
		t.Errorf("on %s, ip route get %s = %q, want via the router %s", from.Name, to.Address, out, router)
	}
	if banner := sshBannerFrom(ctx, t, tb, from.Name, to.Name); !strings.HasPrefix(banner, "SSH-2.0") {
		t.Errorf("%s could not reach sshd of %s by name: %q", from.Name, to.Name, banner)
	}
	ns := netnsName(tb.ID, from.Name)
	dst := netip.MustParseAddr(to.Address)
	if r, err := pingFrom(ns, dst, 64, 56); err != nil || r.From != dst || r.TimeExceeded {
		t.Errorf("ping %s → %s: %+v %v, want an echo reply from %s", from.Name, to.Name, r, err, dst)
	}
	if r, err := pingFrom(ns, dst, 1, 56); err != nil || r.From.String() != router || !r.TimeExceeded {
		t.Errorf("ping %s → %s with TTL 1: %+v %v, want time exceeded from the router %s", from.Name, to.Name, r, err, router)
	}
}

// checkVXLAN builds flannel's kind of VXLAN link (VNI 42, port 8472, static
// forwarding entries) inside both nodes and sends traffic over it: pings,
// one of the largest size the overlay's MTU allows unfragmented, and TCP.
func checkVXLAN(ctx context.Context, t *testing.T, tb *Testbed, a, b Host) {
	t.Helper()
	for i, p := range [][2]Host{{a, b}, {b, a}} {
		self, peer := p[0], p[1]
		script := "ip link add vx0 type vxlan id 42 dstport 8472 local " + self.Address + " dev eth0 nolearning && " +
			"ip addr add 10.99.0." + string(rune('1'+i)) + "/24 dev vx0 && ip link set vx0 up && " +
			"bridge fdb append 00:00:00:00:00:00 dev vx0 dst " + peer.Address + " && ip -o link show vx0 | grep -o 'mtu [0-9]*'"
		out, err := tb.Exec(ctx, self.Name, script)
		if err != nil {
			t.Fatal(err)
		}
		// eth0's 1500 less VXLAN's 50 bytes of outer headers.
		if mtu := strings.TrimSpace(out); mtu != "mtu 1450" {
			t.Errorf("vx0 on %s has MTU %s, want 1450", self.Name, mtu)
		}
	}
	ns := netnsName(tb.ID, a.Name)
	peer := netip.MustParseAddr("10.99.0.2")
	// 1422 bytes of payload + 8 (ICMP) + 20 (IP) = 1450, the overlay's MTU.
	for _, size := range []int{56, 1422} {
		if r, err := pingFrom(ns, peer, 64, size); err != nil || r.From != peer {
			t.Errorf("ping over the overlay %s → %s, %d bytes: %+v %v", a.Name, peer, size, r, err)
		}
	}
	if _, err := pingFrom(ns, peer, 64, 1423); err == nil || !strings.Contains(err.Error(), "message too long") {
		t.Errorf("a 1451-byte packet over the 1450-byte overlay, not to be fragmented: %v, want EMSGSIZE", err)
	}
	if banner := sshBannerFrom(ctx, t, tb, a.Name, peer.String()); !strings.HasPrefix(banner, "SSH-2.0") {
		t.Errorf("%s could not reach sshd at %s over the overlay: %q", a.Name, peer, banner)
	}
}

func bridgeHasAddr(bridge, addr string) bool {
	i, err := net.InterfaceByName(bridge)
	if err != nil {
		return false
	}
	addrs, _ := i.Addrs()
	for _, x := range addrs {
		if p, err := netip.ParsePrefix(x.String()); err == nil && p.Addr().String() == addr {
			return true
		}
	}
	return false
}

func readTrimmed(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

func TestPlacement(t *testing.T) {
	names := []string{"m0", "m1", "m2"}
	for _, c := range []struct {
		o    Options
		want []int
	}{
		{Options{}, []int{0, 0, 0}},
		{Options{Networks: 1}, []int{0, 0, 0}},
		{Options{Networks: 2}, []int{0, 1, 0}},
		{Options{Networks: 3}, []int{0, 1, 2}},
		{Options{Networks: 2, NetworkOf: map[string]int{"m2": 1}}, []int{0, 0, 1}},
	} {
		if got, err := c.o.placement(names); err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%+v: %v %v, want %v", c.o, got, err, c.want)
		}
	}
	for _, bad := range []Options{
		{Networks: -1}, {Networks: maxNetworks + 1},
		{Networks: 2, NetworkOf: map[string]int{"m9": 1}},
		{Networks: 2, NetworkOf: map[string]int{"m1": 2}},
		{NetworkOf: map[string]int{"m1": 1}},
	} {
		if _, err := bad.placement(names); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	// Link names are at most 15 bytes, with the longest id too.
	for _, l := range []string{netBridgeName("abcdefgh", maxNetworks-1), routerVeth("abcdefgh", maxNetworks-1)} {
		if len(l) > 15 {
			t.Errorf("link name %q too long", l)
		}
	}
	if netBridgeName("x", 0) != bridgeName("x") {
		t.Error("the first network's bridge must keep its name")
	}
}

// TestSweepOrphanRouterAndBridges: the router namespace and the further
// networks' bridges of a testbed whose run dir is gone are swept too.
func TestSweepOrphanRouterAndBridges(t *testing.T) {
	requireRoot(t)
	ctx := context.Background()
	gone := "zx" + time.Now().Format("0405")
	bridge := netBridgeName(gone, 1)
	if err := errors.Join(run(ctx, "ip", "netns", "add", routerNetns(gone)),
		run(ctx, "ip", "link", "add", bridge, "type", "bridge")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteNetns(ctx, routerNetns(gone)); deleteLink(ctx, bridge) })
	if err := sweepOrphanNames([]string{t.TempDir()}, func(id string) bool { return id == gone }); err != nil {
		t.Fatal(err)
	}
	if linkExists(bridge) || len(netnsWithPrefix(netnsPrefix(gone))) != 0 {
		t.Errorf("orphans of %s survived the sweep: %s, %v", gone, bridge, netnsWithPrefix(netnsPrefix(gone)))
	}
}

// TestInventoryNetworks: the JSON inventory says which network each host is
// on and lists the networks with this machine's and the router's address.
func TestInventoryNetworks(t *testing.T) {
	tb := fromRecord(&record{ID: "two", Dir: "/run/eggo-testbed/two", Subnet: "10.77.0.0/24", Bridge: "ebr-two",
		More: []networkRecord{{Subnet: "10.77.4.0/24", Bridge: "ebr-two-1"}}, Router: routerNetns("two"),
		Nodes: []nodeRecord{{Name: "m0", Address: "10.77.0.11"}, {Name: "m1", Address: "10.77.4.12", Network: 1}}})
	path := filepath.Join(t.TempDir(), "inv.json")
	if _, err := tb.WriteInventory(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var inv Inventory
	if err := json.Unmarshal(data, &inv); err != nil {
		t.Fatal(err)
	}
	if h := inv.Hosts[1]; h.Network != 1 || h.Subnet != "10.77.4.0/24" || inv.Hosts[0].Network != 0 || inv.Hosts[0].Subnet != "10.77.0.0/24" {
		t.Errorf("hosts %+v", inv.Hosts)
	}
	want := []Network{
		{Subnet: "10.77.0.0/24", Bridge: "ebr-two", Gateway: "10.77.0.1", Router: "10.77.0.254"},
		{Subnet: "10.77.4.0/24", Bridge: "ebr-two-1", Gateway: "10.77.4.1", Router: "10.77.4.254"},
	}
	if !slices.Equal(inv.Networks, want) {
		t.Errorf("networks %+v, want %+v", inv.Networks, want)
	}
}
