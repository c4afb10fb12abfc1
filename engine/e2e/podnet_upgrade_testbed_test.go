package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/harness/eggotest"
	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/resources"
)

// routesRelease is the last commit of eggo whose pod network was the
// host-gw routes service: the upgrade test builds it to make a cluster the
// way users' clusters were made.
const routesRelease = "4869f8e"

// buildEggoAt builds eggo as it was at a commit of this repository.
func buildEggoAt(t *testing.T, commit string) string {
	t.Helper()
	root := eggotest.Root()
	if err := exec.Command("git", "-C", root, "cat-file", "-e", commit+"^{commit}").Run(); err != nil {
		// A source tree without its history (an archive, a shallow clone)
		// cannot build the old release: say so, loudly, rather than fail.
		t.Skipf("SKIPPED: commit %s is not in %s (a shallow clone or no git history), so the old eggo cannot be built: %v", commit, root, err)
	}
	src, bin := t.TempDir(), filepath.Join(t.TempDir(), "eggo-"+commit)
	archive := exec.Command("sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", root, commit, src)
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("git archive %s: %v\n%s", commit, err, out)
	}
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of %s: %v\n%s", commit, err, out)
	}
	return bin
}

// TestPodNetworkUpgradeFromRoutesOnTestbed: a cluster made by the eggo of
// the routes service moves to flannel with one apply of today's eggo. The
// plan says the routes' removal interrupts pod traffic; afterwards the
// routes services, their routes and chains are gone from the hosts, each
// worker kept its subnet (now its Node's podCIDR), the pods that ran
// before kept their addresses and reach each other again, and a second
// apply has nothing to do.
func TestPodNetworkUpgradeFromRoutesOnTestbed(t *testing.T) {
	parallel(t)
	bundleDir(t, k8sOldEggo)
	old := buildEggoAt(t, routesRelease)
	tb := nspawntest.UpForTestWith(t, nspawntest.Options{N: 3, Names: []string{"m0", "w0", "w1"}, Containers: true})
	dir := t.TempDir()
	podnetConfigWith(t, dir, tb, k8sOldEggo, legacyRuntime, "extra_args = { "+oldEggoKubelet+" }", "w0", "w1")
	cmd := exec.Command(old, "-chdir="+dir, "apply", "-auto-approve")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("apply of eggo %s: %v\n%s", routesRelease, err, out)
	}
	pause := imagesOf(k8sOldEggo).Pause
	p0, p1 := runPod(t, tb, "p0", "w0", pause), runPod(t, tb, "p1", "w1", pause)
	if got := tcpFrom(t, tb, "w0", p0, p1, 80); !strings.Contains(got, "Connection refused") {
		t.Fatalf("before the upgrade, pod on w0 → pod %s on w1: %q", p1, got)
	}

	p, res := runApply(t, dir, nil)
	if !res.OK() {
		t.Fatalf("the upgrade to flannel failed: %v %v", res.Failed, res.Skipped)
	}
	for _, w := range []string{"w0", "w1"} {
		s := p.Step(resources.ServiceAddr(resources.CompPodRoutes, w))
		if s == nil || s.Action != resources.Delete || len(s.Reasons) < 2 || s.Reasons[1].Code != resources.ReasonInterrupts {
			t.Errorf("%s's routes service in the plan: %+v, want a delete that says it interrupts pod traffic", w, s)
		}
		if left := mustExec(t, tb, w, "ip route show proto 77; iptables-save | grep EGGO-POD; ls /etc/systemd/system/"+resources.CompPodRoutes+".service 2>/dev/null; true"); left != "" {
			t.Errorf("%s keeps the routes service's work: %q", w, left)
		}
		if f := mustExec(t, tb, w, "cat /proc/sys/net/ipv4/ip_forward"); f != "1" {
			t.Errorf("%s: forwarding %s after the routes service went, want 1 (flannel needs it)", w, f)
		}
	}
	if got := mustExec(t, tb, "m0", adminKubectl+"get nodes -o jsonpath='{range .items[*]}{.metadata.name}={.spec.podCIDR} {end}'"); got != "m0=10.244.2.0/24 w0=10.244.0.0/24 w1=10.244.1.0/24" {
		t.Errorf("Nodes' podCIDRs after the upgrade: %q, want the subnets the routes service used", got)
	}
	for name, ip := range map[string]string{"p0": p0, "p1": p1} {
		if got := mustExec(t, tb, "m0", adminKubectl+"get pod "+name+" -o jsonpath='{.status.podIP}'"); got != ip {
			t.Errorf("pod %s: address %s after the upgrade, was %s", name, got, ip)
		}
	}
	var got string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Second) {
		if got = tcpFrom(t, tb, "w0", p0, p1, 80); strings.Contains(got, "Connection refused") {
			break
		}
	}
	if !strings.Contains(got, "Connection refused") {
		// Once in CI (the race step): "No route to host" for the whole
		// minute, while the apply after it planned nothing, so flanneld's
		// refresh found every node's routes through flannel.1 (an address
		// that did not resolve, not a missing route: see podPathDiag).
		t.Errorf("after the upgrade, pod on w0 → pod %s on w1 (both from before): %q\n%s", p1, got, podPathDiag(tb, "w0", p0, "w1", p1))
	}
	if p, _ := runApply(t, dir, nil); p.HasChanges() {
		t.Errorf("the apply after the upgrade: %v", actions(p))
	}
	if _, res := runApply(t, dir, func(r *runOpts) { r.req.Destroy = true }); !res.OK() {
		t.Fatalf("destroy failed: %v %v", res.Failed, res.Skipped)
	}
}
