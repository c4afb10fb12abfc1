package engine

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/testbed"
	"github.com/eggo-project/eggo/resources"
)

// TestStaticPodsOnTestbed: with implementation = "pod" the masters'
// kubelets run the control plane from manifests at kubeadm's paths, from the
// bundle's images; `kubectl -n kube-system get pods` shows it; a second apply
// restarts nothing; a manifest deleted by hand is drift the next apply
// restores; destroy leaves neither manifests nor containers.
func TestStaticPodsOnTestbed(t *testing.T) {
	tb := testbed.UpForTestWith(t, testbed.Options{N: 2, Names: []string{"m0", "w0"}, Containers: true})
	dir := t.TempDir()
	// Deployed as systemd services, then switched: each control-plane
	// service is updated (its unit stopped, its pod started), every kubelet
	// learns the manifests directory, the master receives the images,
	// nothing else changes.
	podnetConfigWith(t, dir, tb, testbedRuntime, "", "w0")
	if _, res := runApply(t, dir, nil); !res.OK() {
		t.Fatalf("apply failed: %v %v", res.Failed, res.Skipped)
	}
	podnetConfigWith(t, dir, tb, testbedRuntime, `implementation = "pod"`, "w0")
	p, res := runApply(t, dir, nil)
	if !res.OK() {
		t.Fatalf("the switch to static pods failed: %v %v", res.Failed, res.Skipped)
	}
	t.Logf("binary → pod: %s", changed(p))
	got := strings.Split(changed(p), ", ")
	sort.Strings(got)
	if want := `update host.m0, update service.kube-apiserver["m0"], update service.kube-controller-manager["m0"], update service.kube-scheduler["m0"], update service.kubelet["m0"], update service.kubelet["w0"]`; strings.Join(got, ", ") != want {
		t.Errorf("the switch changed %s\nwant %s", got, want)
	}

	// The mirror pods' status follows the kubelet's within seconds (eggo's
	// health check asked containerd and the components themselves).
	pods := mustExec(t, tb, "m0", `for i in $(seq 30); do
  out=$(`+adminKubectl+`-n kube-system get pods -o jsonpath='{range .items[*]}{.metadata.name} {.status.phase} {.spec.nodeName}{"\n"}{end}')
  [ "$(echo "$out" | grep -c ' Running m0$')" -ge 3 ] && break
  sleep 2
done
echo "$out"`)
	for _, c := range []string{resources.CompAPIServer, resources.CompControllerManager, resources.CompScheduler} {
		if !strings.Contains(pods+"\n", c+"-m0 Running m0\n") {
			t.Errorf("kube-system pods:\n%s\nwant %s-m0 Running on m0", pods, c)
		}
		if got := mustExec(t, tb, "m0", "systemctl cat "+c+".service >/dev/null 2>&1 && echo unit || echo none"); got != "none" {
			t.Errorf("%s is also a systemd unit on m0", c)
		}
	}
	if got := mustExec(t, tb, "m0", "ls -A /etc/kubernetes/manifests"); got != "kube-apiserver.yaml\nkube-controller-manager.yaml\nkube-scheduler.yaml" {
		t.Errorf("/etc/kubernetes/manifests holds %q", got)
	}
	if got := mustExec(t, tb, "w0", "ls -A /etc/kubernetes/manifests 2>/dev/null | wc -l"); got != "0" {
		t.Errorf("the worker has %s manifests", got)
	}

	// A no-op apply restarts nothing: the same containers run.
	before := mustExec(t, tb, "m0", "ctr -n k8s.io tasks ls -q | sort")
	if p, _ := runApply(t, dir, nil); p.HasChanges() {
		t.Errorf("the second apply: %s", changed(p))
	}
	if after := mustExec(t, tb, "m0", "ctr -n k8s.io tasks ls -q | sort"); after != before {
		t.Errorf("a no-op apply changed the containers on m0:\nbefore %s\nafter  %s", before, after)
	}

	// A manifest removed by hand: the kubelet stops the pod; the next plan
	// names the drift and the apply puts the pod back.
	mustExec(t, tb, "m0", "rm /etc/kubernetes/manifests/kube-scheduler.yaml")
	p, res = runApply(t, dir, nil)
	if !res.OK() {
		t.Fatalf("the repair failed: %v %v", res.Failed, res.Skipped)
	}
	sched := resources.ServiceAddr(resources.CompScheduler, "m0")
	if got := changed(p); got != "update "+sched {
		t.Errorf("after the manifest was removed the apply changed %q, want %s only", got, sched)
	}
	if s := p.Step(sched); s == nil || !strings.Contains(reasonsText(s.Reasons), "missing") {
		t.Errorf("the repair's reasons: %+v, want the manifest named missing", s)
	}
	if got := mustExec(t, tb, "m0", adminKubectl+"-n kube-system get pod kube-scheduler-m0 -o jsonpath='{.status.phase}'"); got != "Running" {
		t.Errorf("kube-scheduler-m0 after the repair: %q", got)
	}

	// A change the scheduler cannot start with: the apply fails fast (a
	// crash loop, not the health timeout), the old manifest is back and
	// its pod runs; with the change undone the next apply converges.
	podnetConfigWith(t, dir, tb, testbedRuntime, `implementation = "pod"
  extra_args = { kube-scheduler = { "no-such-flag" = "1" } }`, "w0")
	started := time.Now()
	_, res = runApply(t, dir, nil)
	if res.OK() {
		t.Fatalf("an apply with a flag the scheduler refuses succeeded")
	}
	msg := fmt.Sprint(res.Failed)
	t.Logf("the failed change, in %s: %s", time.Since(started).Round(time.Second), msg)
	if !strings.Contains(msg, "crash-looping") || !strings.Contains(msg, "previous manifest") {
		t.Errorf("the failure does not say the pod crash-looped and the previous manifest is back: %s", msg)
	}
	if got := mustExec(t, tb, "m0", "grep -c no-such-flag /etc/kubernetes/manifests/kube-scheduler.yaml; true"); got != "0" {
		t.Errorf("the broken manifest stayed")
	}
	mustExec(t, tb, "m0", "for i in $(seq 60); do "+adminKubectl+"-n kube-system get pod kube-scheduler-m0 -o jsonpath='{.status.containerStatuses[0].ready}' | grep -qx true && exit 0; sleep 2; done; exit 1")
	podnetConfigWith(t, dir, tb, testbedRuntime, `implementation = "pod"`, "w0")
	if _, res := runApply(t, dir, nil); !res.OK() {
		t.Fatalf("the apply after undoing the change failed: %v", res.Failed)
	}
	if p, _ := runApply(t, dir, nil); p.HasChanges() {
		t.Errorf("after converging: %s", changed(p))
	}

	// And back: the units run again, the manifests are gone.
	podnetConfigWith(t, dir, tb, testbedRuntime, "", "w0")
	if _, res := runApply(t, dir, nil); !res.OK() {
		t.Fatalf("the switch back to systemd services failed: %v", res.Failed)
	}
	if got := mustExec(t, tb, "m0", "systemctl is-active kube-apiserver kube-controller-manager kube-scheduler | sort -u; ls -A /etc/kubernetes/manifests | wc -l"); got != "active\n0" {
		t.Errorf("after switching back, on m0: %q, want the units active and no manifests", got)
	}

	if _, res := runApply(t, dir, func(o *Options) { o.Destroy = true }); !res.OK() {
		t.Fatalf("destroy failed: %v %v", res.Failed, res.Skipped)
	}
	if got := mustExec(t, tb, "m0", "ls -d /etc/kubernetes/manifests /var/lib/eggo/manifests-backup 2>&1; pgrep -c -f 'kube-(apiserver|scheduler|controller-manager)'; true"); got != "ls: cannot access '/etc/kubernetes/manifests': No such file or directory\nls: cannot access '/var/lib/eggo/manifests-backup': No such file or directory\n0" {
		t.Errorf("after destroy, on m0:\n%s\nwant no manifests directories and no control-plane processes", got)
	}
}

func reasonsText(rs []resources.Reason) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Detail)
	}
	return strings.Join(out, "; ")
}
