package kube

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// routesRun is a run whose state records workers w0, w1 (flanneld
// running), w2 (flanneld pending) and w3 (no flanneld).
func routesRun() *resources.RunContext {
	rc := resources.NewRunContext(nil, nil)
	nodes := map[string]string{"w0": "10.244.0.0/24", "w1": "10.244.1.0/24", "w2": "10.244.2.0/24", "w3": "10.244.3.0/24"}
	rc.Recorded = func(kind string) []resources.Object {
		var out []resources.Object
		for n, s := range nodes {
			switch kind {
			case K8sNode{}.Name():
				out = append(out, resources.Object{Addr: K8sNodeAddr(n), Kind: kind, Node: n, Attrs: resources.Attrs{AttrPodSubnet: s}})
			case "service":
				if n == "w3" {
					continue
				}
				out = append(out, resources.Object{Addr: resources.ServiceAddr(resources.CompFlannel, n), Kind: kind, Node: n,
					Attrs: resources.Attrs{svcComponent: resources.CompFlannel}, Pending: n == "w2"})
			}
		}
		return out
	}
	return rc
}

// runRoutesScript runs a check's script with ip answering routes (one
// line each, as `ip -o route` prints them) and sleep doing nothing.
func runRoutesScript(t *testing.T, c liveCheck, routes ...string) string {
	t.Helper()
	var ip strings.Builder
	for _, r := range routes {
		ip.WriteString(r + " via " + strings.TrimSuffix(r, "/24") + " dev flannel.1 onlink\\n")
	}
	out, err := exec.Command("bash", "-c", "ip() { printf '"+ip.String()+"'; }; sleep() { :; }; "+c.script).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return string(out)
}

func TestPodRoutesCheck(t *testing.T) {
	rc := routesRun()
	defer rc.Close()
	if _, ok := podRoutesCheck(rc, "w3"); ok {
		t.Error("a worker without flanneld is checked")
	}
	c, ok := podRoutesCheck(rc, "w0")
	if !ok {
		t.Fatal("w0 is not checked")
	}
	// w0's routes: w1's subnet only (w2's flanneld is not running yet).
	if got := c.verdict(runRoutesScript(t, c, "10.244.1.0/24")); got != nil {
		t.Errorf("the right routes: %v", got)
	}
	for name, routes := range map[string][]string{
		"a route deleted":  nil,
		"a route added":    {"10.244.1.0/24", "10.244.9.0/24"},
		"a route replaced": {"10.244.8.0/24"},
	} {
		got := c.verdict(runRoutesScript(t, c, routes...))
		if len(got) != 1 || !strings.Contains(got[0], "the pod subnets of the 1 other Nodes running flanneld") {
			t.Errorf("%s: %v", name, got)
		}
	}
	if got := c.verdict(""); len(got) != 1 || !strings.Contains(got[0], "no answer") {
		t.Errorf("no answer: %v", got)
	}
	// The refresh's problems are the plan's drift, and restart flanneld.
	d := testService("1.31.3", "a=1\n", "CERT-1")
	live := healthyLive(d)
	live.Problems = c.verdict("")
	ch := planOf(t, recorded(d, live), d)
	if ch.Action != resources.Update || !strings.Contains(reasonText(ch), "changed-outside: the routes through flannel.1") || !strings.Contains(reasonText(ch), "restarts") {
		t.Errorf("a problem found by refresh: %s %s", ch.Action, reasonText(ch))
	}
}
