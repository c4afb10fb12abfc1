package e2e_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/kube"
)

// mastersAreNodes checks the master m0 of a running cluster is a Node as
// in every kubeadm-shaped cluster: labelled control-plane and tainted
// NoSchedule; a DaemonSet without a toleration lands on the workers only
// and one with it on every Node; a taint removed by hand is drift the
// next apply repairs (and only it); schedule_on_masters drops the taint
// and turning it off brings it back. configure writes the cluster
// definition with extra cluster attributes.
func mastersAreNodes(t *testing.T, tb *nspawntest.Testbed, dir string, workers []string, configure func(extra string)) {
	t.Helper()
	taint := resources.ControlPlaneTaint + ":NoSchedule"
	taints := func() string {
		return mustExec(t, tb, "m0", adminKubectl+"get node m0 -o jsonpath='{range .spec.taints[*]}{.key}:{.effect} {end}'")
	}
	if got := mustExec(t, tb, "m0", adminKubectl+"get nodes -l "+resources.ControlPlaneLabel+" -o name"); got != "node/m0" {
		t.Errorf("Nodes labelled %s: %q, want node/m0", resources.ControlPlaneLabel, got)
	}
	if got := taints(); got != taint {
		t.Errorf("m0's taints: %q, want %s", got, taint)
	}

	all := append([]string{"m0"}, workers...)
	slices.Sort(all)
	if got := daemonSetNodes(t, tb, "plain", false); !slices.Equal(got, workers) {
		t.Errorf("a DaemonSet without a toleration runs on %v, want the workers %v", got, workers)
	}
	if got := daemonSetNodes(t, tb, "tolerant", true); !slices.Equal(got, all) {
		t.Errorf("a DaemonSet that tolerates the control-plane taint runs on %v, want %v", got, all)
	}

	// Drift: the taint removed by hand. The plan repairs m0's Node only.
	mustExec(t, tb, "m0", adminKubectl+"taint node m0 "+taint+"-")
	p, res := runApply(t, dir, nil)
	if !res.OK() {
		t.Fatalf("restoring the taint failed: %v %v", res.Failed, res.Skipped)
	}
	if got := changed(p); got != "update "+kube.K8sNodeAddr("m0") {
		t.Errorf("after the taint was removed by hand, the plan: %s, want k8s_node.m0 updated only", got)
	}
	if got := taints(); got != taint {
		t.Errorf("m0's taints after the repair: %q", got)
	}

	// schedule_on_masters drops the taint (and the kubelet's registration
	// flag); turned off, the taint comes back.
	configure("schedule_on_masters = true")
	if p, res = runApply(t, dir, nil); !res.OK() {
		t.Fatalf("schedule_on_masters = true failed: %v %v", res.Failed, res.Skipped)
	}
	got := strings.Split(changed(p), ", ")
	slices.Sort(got)
	if want := []string{"update " + kube.K8sNodeAddr("m0"), "update " + resources.ServiceAddr(resources.CompKubelet, "m0")}; !slices.Equal(got, want) {
		t.Errorf("schedule_on_masters = true plans %v, want %v", got, want)
	}
	if got := taints(); got != "" {
		t.Errorf("with schedule_on_masters, m0's taints: %q", got)
	}
	configure("")
	if _, res = runApply(t, dir, nil); !res.OK() {
		t.Fatalf("schedule_on_masters off again failed: %v %v", res.Failed, res.Skipped)
	}
	if got := taints(); got != taint {
		t.Errorf("schedule_on_masters off again, m0's taints: %q", got)
	}
}

// daemonSetNodes runs a DaemonSet of the pause image (tolerating the
// control-plane taint when tolerant), waits for it to roll out, and
// returns the sorted names of the Nodes its pods run on. It deletes the
// DaemonSet before returning.
func daemonSetNodes(t *testing.T, tb *nspawntest.Testbed, name string, tolerant bool) []string {
	t.Helper()
	toleration := ""
	if tolerant {
		toleration = `
      tolerations:
      - key: ` + resources.ControlPlaneTaint + `
        operator: Exists
        effect: NoSchedule`
	}
	manifest := `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ` + name + `
spec:
  selector:
    matchLabels: {app: ` + name + `}
  template:
    metadata:
      labels: {app: ` + name + `}
    spec:
      terminationGracePeriodSeconds: 0` + toleration + `
      containers:
      - name: pause
        image: ` + k8sImages.Pause + `
        imagePullPolicy: Never
`
	mustExec(t, tb, "m0", "cat <<'EOF' | "+adminKubectl+"apply -f - >/dev/null\n"+manifest+"EOF")
	defer mustExec(t, tb, "m0", adminKubectl+"delete daemonset "+name+" --wait=true --timeout=60s")
	mustExec(t, tb, "m0", adminKubectl+"rollout status daemonset/"+name+" --timeout=120s >/dev/null")
	var nodes []string
	// Rolled out: every pod it wants is scheduled; read where they run.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		nodes = strings.Fields(mustExec(t, tb, "m0", adminKubectl+"get pods -l app="+name+" -o jsonpath='{range .items[*]}{.spec.nodeName} {end}'"))
		if len(nodes) > 0 {
			break
		}
	}
	slices.Sort(nodes)
	return nodes
}
