package kube

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/resourcestest"
)

// writeBundle writes a bundle with every required file; programs maps a
// path to its content where it must differ from the path itself.
func writeBundle(t *testing.T, programs map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, rel := range resources.RequiredBundleFiles() {
		content, ok := programs[rel]
		if !ok {
			content = rel
		}
		resourcestest.WriteFile(t, filepath.Join(dir, "amd64", filepath.FromSlash(rel)), content, 0o755)
	}
	return dir
}

func upgradeCluster(version, packages string) *resources.Cluster {
	return &resources.Cluster{Name: "c", KubernetesVersion: version, ConfigDir: "/etc/kubernetes", Packages: packages,
		Network: resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16"},
		Nodes: []resources.Node{
			{Name: "m0", Address: "10.0.0.11", Roles: []string{"master", "etcd"}},
			{Name: "e0", Address: "10.0.0.12", Roles: []string{"etcd"}},
			{Name: "w0", Address: "10.0.0.13", Roles: []string{"worker"}},
		}}
}

// planMembers plans the members of to over what from's members recorded.
func planMembers(t *testing.T, from, to *resources.Cluster) map[string]resources.Change {
	t.Helper()
	before, err := (EtcdMember{}).Expand(from)
	if err != nil {
		t.Fatal(err)
	}
	after, err := (EtcdMember{}).Expand(to)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]resources.Change{}
	for i, d := range after {
		prior := recorded(before[i], nil)
		ch, err := (EtcdMember{}).Plan(context.Background(), nil, prior, d)
		if err != nil {
			t.Fatal(err)
		}
		out[d.Addr] = ch
	}
	return out
}

// A Kubernetes upgrade whose bundle carries the same etcd leaves every etcd
// member running: restarting them bought nothing and failed the requests
// the apiservers had in flight on them (issue 13: "rpc error" through the
// load balancer during 1.31.3 → 1.31.4). A new etcd program restarts them.
// containerd, also a release of its own, is versioned the same way.
func TestUpgradeRestartsEtcdOnlyForANewEtcd(t *testing.T) {
	from := upgradeCluster("1.31.3", writeBundle(t, map[string]string{"usr/local/bin/kube-apiserver": "apiserver 1.31.3"}))
	to := upgradeCluster("1.31.4", writeBundle(t, map[string]string{"usr/local/bin/kube-apiserver": "apiserver 1.31.4"}))
	for addr, ch := range planMembers(t, from, to) {
		if ch.Action != resources.NoOp {
			t.Errorf("Kubernetes 1.31.3 → 1.31.4 with the same etcd: %s %s (%s); want it left running", addr, ch.Action, reasonText(ch))
		}
	}
	// The apiserver does restart: its program is new.
	services, err := componentServices(to)
	if err != nil {
		t.Fatal(err)
	}
	old, err := componentServices(from)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range services {
		switch d.Addr {
		case resources.ServiceAddr(resources.CompAPIServer, "m0"):
			if ch := planOf(t, recorded(old[i], nil), d); ch.Action != resources.Update || !strings.Contains(reasonText(ch), "1.31.3 → 1.31.4") {
				t.Errorf("apiserver: %s (%s), want an upgrade", ch.Action, reasonText(ch))
			}
		case resources.ServiceAddr(resources.CompContainerd, "w0"): // its own release too
			if ch := planOf(t, recorded(old[i], nil), d); ch.Action != resources.NoOp {
				t.Errorf("containerd with the same program: %s (%s), want it left running", ch.Action, reasonText(ch))
			}
		}
	}
	newRuntime := upgradeCluster("1.31.4", writeBundle(t, map[string]string{"usr/local/bin/containerd": "containerd 2.0"}))
	if services, err = componentServices(newRuntime); err != nil {
		t.Fatal(err)
	}
	for i, d := range services {
		if d.Addr == resources.ServiceAddr(resources.CompContainerd, "w0") {
			if ch := planOf(t, recorded(old[i], nil), d); ch.Action != resources.Update || !strings.Contains(reasonText(ch), "version containerd sha256:") {
				t.Errorf("a new containerd program: %s (%s); want a restart for the new version", ch.Action, reasonText(ch))
			}
		}
	}

	newEtcd := upgradeCluster("1.31.4", writeBundle(t, map[string]string{"usr/local/bin/etcd": "etcd 3.5.16"}))
	for addr, ch := range planMembers(t, from, newEtcd) {
		if ch.Action != resources.Update || !strings.Contains(reasonText(ch), "version etcd sha256:") || !strings.Contains(reasonText(ch), "restarts etcd.service") {
			t.Errorf("a new etcd program: %s %s (%s); want a restart for the new version", addr, ch.Action, reasonText(ch))
		}
	}
}

// The apiserver's restart is a drain: told to stop, it fails /readyz but
// serves for longer than the load balancers take to drop it; back up, eggo
// moves on to the next master only after its /readyz kept passing for as
// long as they take to put it back.
func TestAPIServerRestartIsTimedByTheLoadBalancer(t *testing.T) {
	if apiserverShutdownDelay <= lbDrainTime {
		t.Errorf("shutdown delay %s is not longer than the load balancers' drain time %s", apiserverShutdownDelay, lbDrainTime)
	}
	c := upgradeCluster("1.31.4", "")
	c.Nodes = append(c.Nodes, resources.Node{Name: "lb", Address: "10.0.0.2", Roles: []string{"loadbalance"}})
	api := apiServer(c, c.Nodes[0])
	if !strings.Contains(api.Unit, "--shutdown-delay-duration="+apiserverShutdownDelay.String()) {
		t.Errorf("apiserver unit without the shutdown delay %s:\n%s", apiserverShutdownDelay, api.Unit)
	}
	// Its clients' watches end once it stops taking requests, so it stops
	// in seconds, not after the server's 60 s shutdown timeout.
	if !strings.Contains(api.Unit, "--shutdown-watch-termination-grace-period="+apiserverWatchDrain.String()) {
		t.Errorf("apiserver unit that waits out its watches:\n%s", api.Unit)
	}
	cfg := loadBalancer(c, c.Nodes[len(c.Nodes)-1]).Files[0].Content.(string)
	// It checks readiness but etcd's part: a slow etcd, which every
	// apiserver shares, must not empty the pool.
	for _, want := range []string{"timeout check 1s", "inter 1s fall 2 rise 2", "option httpchk GET /readyz?exclude=etcd&exclude=etcd-readiness\n"} {
		if !strings.Contains(cfg, want) {
			t.Errorf("haproxy.cfg without %q:\n%s", want, cfg)
		}
	}

	// The health check against a fake kubectl: ready throughout passes,
	// and not before lbReaddTime; ready, then not (a crash loop), fails.
	for _, tc := range []struct {
		name    string
		readyz  string // answers, one a line; the last repeats
		healthy bool
	}{
		{"ready throughout", "ok\n", true},
		{"ready, then not", "ok\nfail\n", false},
	} {
		dir := t.TempDir()
		resourcestest.WriteFile(t, filepath.Join(dir, "answers"), tc.readyz, 0o644)
		resourcestest.WriteFile(t, filepath.Join(dir, "kubectl"), `#!/bin/sh
echo "$(date +%s.%N) $*" >> "$(dirname "$0")/calls"
case "$*" in
*/version) echo '{"gitVersion": "v1.31.4"}' ;;
*/readyz)
  a=$(head -n 1 "$(dirname "$0")/answers")
  if [ "$(wc -l < "$(dirname "$0")/answers")" -gt 1 ]; then sed -i 1d "$(dirname "$0")/answers"; fi
  [ "$a" = ok ] ;;
esac
`, 0o755)
		start := time.Now()
		cmd := exec.Command("sh", "-c", api.Health)
		cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		took := time.Since(start)
		if (err == nil) != tc.healthy {
			t.Errorf("%s: health %v (%s), want healthy=%v", tc.name, err, out, tc.healthy)
		}
		calls := resourcestest.KubectlCalls(t, filepath.Join(dir, "calls"))
		if tc.healthy && (took < lbReaddTime || len(calls) != 3 || !strings.HasSuffix(calls[2], "/readyz")) {
			t.Errorf("%s: healthy after %s with calls %q; want /readyz again after %s", tc.name, took, calls, lbReaddTime)
		}
	}
}
