package e2e_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/resources"
)

// k8sMode is the cluster's implementation in the Kubernetes end-to-end
// test: the same run, with what differs between systemd units and static
// pods asked here.
type k8sMode struct {
	pod bool
}

var (
	binaryMode = k8sMode{}
	podMode    = k8sMode{pod: true}
)

var controlPlane = []string{resources.CompAPIServer, resources.CompControllerManager, resources.CompScheduler}

// cluster is the mode's line in the cluster block.
func (m k8sMode) cluster() string {
	if m.pod {
		return `implementation = "pod"`
	}
	return ""
}

// restarts maps what a restart changes to its current value: systemd's
// invocation ID of each unit, and in pod mode the containerd containers of
// kube-system's pods on each host and each control-plane pod's UID and
// container as the API reports them.
func (m k8sMode) restarts(t *testing.T, tb *nspawntest.Testbed, lb string, hosts ...string) map[string]string {
	t.Helper()
	out := unitInvocations(t, tb, hosts...)
	if !m.pod {
		return out
	}
	for _, h := range hosts {
		out[h+"/kube-system containers"] = strings.Join(strings.Fields(mustExec(t, tb, h,
			`ctr -n k8s.io containers ls -q 'labels."io.kubernetes.pod.namespace"==kube-system' | sort`)), " ")
	}
	for name, p := range controlPlanePods(t, tb, lb, 0) {
		out["pod "+name] = p.uid + " " + p.container
	}
	return out
}

// definition is how a control-plane component is run on a host: its unit,
// or its static pod's manifest.
func (m k8sMode) definition(t *testing.T, tb *nspawntest.Testbed, host, component string) string {
	t.Helper()
	if m.pod {
		return mustExec(t, tb, host, "cat /etc/kubernetes/manifests/"+component+".yaml")
	}
	return mustExec(t, tb, host, "systemctl cat "+component)
}

// checkControlPlane checks every master runs the control plane of a
// version the mode's way: in pod mode the API lists each component's pod
// on each master, Running, of the bundle's image at that version, and no
// systemd unit runs it; in binary mode the units run the binaries of that
// version and no manifest is there.
func (m k8sMode) checkControlPlane(t *testing.T, tb *nspawntest.Testbed, lb, version string, masters ...string) {
	t.Helper()
	want := 0
	if m.pod {
		want = len(controlPlane) * len(masters)
	}
	pods := controlPlanePods(t, tb, lb, want)
	for _, h := range masters {
		units := mustExec(t, tb, h, "systemctl is-active "+strings.Join(controlPlane, " ")+" | sort | uniq -c | awk '{print $2}'; ls -A /etc/kubernetes/manifests 2>/dev/null | wc -l")
		for _, c := range controlPlane {
			p, ok := pods[c+"-"+h]
			switch {
			case m.pod && !ok:
				t.Errorf("no pod %s-%s in kube-system: %v", c, h, pods)
			case m.pod && (p.phase != "Running" || p.image != "registry.k8s.io/"+c+":v"+version):
				t.Errorf("pod %s-%s: %s of %s, want Running of v%s", c, h, p.phase, p.image, version)
			case !m.pod && ok:
				t.Errorf("binary mode, and kube-system has a pod %s-%s", c, h)
			case !m.pod:
				if v := mustExec(t, tb, h, "/usr/local/bin/"+c+" --version"); !strings.Contains(v, "v"+version) {
					t.Errorf("%s on %s: %q, want v%s", c, h, v, version)
				}
			}
		}
		if want := map[bool]string{true: "inactive\n3", false: "active\n0"}[m.pod]; units != want {
			t.Errorf("on %s the control-plane units' states and the manifests' count: %q, want %q", h, units, want)
		}
	}
}

// staticPod is a control-plane pod as the API reports it.
type staticPod struct {
	uid, phase, image, container string
}

// controlPlanePods lists kube-system's control-plane pods by name, once
// the API reports at least want of them, each Running (or after 90 s: a
// kubelet makes a static pod's mirror pod when it syncs the pod, and one
// that could not reach the API then tries again at its next sync, up to a
// minute later — a deploy was seen to end before one master's apiserver
// had its mirror pod).
func controlPlanePods(t *testing.T, tb *nspawntest.Testbed, lb string, want int) map[string]staticPod {
	t.Helper()
	out := map[string]staticPod{}
	lines := mustExec(t, tb, "m0", fmt.Sprintf(`for i in $(seq 45); do
  out=$(kubectl --kubeconfig /etc/kubernetes/admin.conf --server https://%s:6443 -n kube-system get pods -l tier=control-plane \
    -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.uid} {.status.phase} {.spec.containers[0].image} {.status.containerStatuses[0].containerID}{"\n"}{end}')
  [ "$(echo "$out" | grep -c ' Running ')" -ge %d ] && ! echo "$out" | grep -v '^$' | grep -qv ' Running ' && break
  sleep 2
done
echo "$out"`, lb, want))
	for _, l := range strings.Split(lines, "\n") {
		if f := strings.Fields(l); len(f) >= 4 {
			p := staticPod{uid: f[1], phase: f[2], image: f[3]}
			if len(f) > 4 {
				p.container = f[4]
			}
			out[f[0]] = p
		}
	}
	return out
}

// diffMaps lists the keys whose values differ between two snapshots.
func diffMaps(before, after map[string]string) string {
	var out []string
	for k, v := range before {
		if after[k] != v {
			out = append(out, fmt.Sprintf("%s: %q → %q", k, v, after[k]))
		}
	}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			out = append(out, fmt.Sprintf("%s: new %q", k, v))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}
