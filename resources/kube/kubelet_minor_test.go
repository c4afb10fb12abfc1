package kube

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// serviceOf is node's service at addr as cluster c expands it, with the
// etcd members among them.
func serviceOf(t *testing.T, c *resources.Cluster, addr string) resources.Desired {
	t.Helper()
	services, err := componentServices(c)
	if err != nil {
		t.Fatal(err)
	}
	members, err := (EtcdMember{}).Expand(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range append(services, members...) {
		if d.Addr == addr {
			return d
		}
	}
	t.Fatalf("no %s", addr)
	return resources.Desired{}
}

// TestKubeletMinorStopsStaticPodsFirst: the kubelet of a pod implementation
// master that moves to another minor has its static pods (static-pod etcd
// too) stopped before its restart and waits for them after, as the plan
// says; a patch, a worker and the binary implementation restart the
// kubelet alone. The scripts parse.
func TestKubeletMinorStopsStaticPodsFirst(t *testing.T) {
	pods := func(version string) *resources.Cluster {
		c := upgradeCluster(version, "")
		c.Implementation, c.EtcdImplementation = resources.ImplementationPod, resources.ImplementationPod
		c.Nodes = []resources.Node{c.Nodes[0], c.Nodes[2]} // static-pod etcd runs on masters only
		return c
	}
	old, next, patch := pods("1.36.5"), pods("1.37.2"), pods("1.36.6")
	m0 := resources.ServiceAddr(resources.CompKubelet, "m0")
	records := map[string]resources.Object{}
	for _, addr := range []string{resources.ServiceAddr(resources.CompAPIServer, "m0"), resources.ServiceAddr(resources.CompControllerManager, "m0"),
		resources.ServiceAddr(resources.CompScheduler, "m0"), EtcdMemberAddr("m0")} {
		records[addr] = *recorded(serviceOf(t, next, addr), nil)
	}
	rc := resources.NewRunContext(nil, nil)
	defer rc.Close()
	rc.RecordedAt = func(addr string) (resources.Object, bool) { o, ok := records[addr]; return o, ok }

	plan := func(from, to *resources.Cluster, addr string) ([]service, resources.Change) {
		prior, d := recorded(serviceOf(t, from, addr), nil), serviceOf(t, to, addr)
		ch, err := Service{}.Plan(context.Background(), rc, prior, d)
		if err != nil {
			t.Fatal(err)
		}
		return heldStaticPods(rc, prior, d), ch
	}
	held, ch := plan(old, next, m0)
	var names []string
	for _, s := range held {
		names = append(names, s.Pod.PodName)
	}
	if got := strings.Join(names, " "); got != "kube-apiserver-m0 kube-controller-manager-m0 kube-scheduler-m0 etcd-m0" {
		t.Errorf("m0's kubelet 1.36 → 1.37 holds %q", got)
	}
	if !strings.Contains(reasonText(ch), "stops the static pods kube-apiserver-m0, kube-controller-manager-m0, kube-scheduler-m0, etcd-m0 first") {
		t.Errorf("the plan of m0's kubelet does not say it stops its static pods first: %s", reasonText(ch))
	}
	if held, ch := plan(old, patch, m0); held != nil || strings.Contains(reasonText(ch), "static pods") {
		t.Errorf("a patch holds %d static pods: %s", len(held), reasonText(ch))
	}
	if held, _ := plan(old, next, resources.ServiceAddr(resources.CompKubelet, "w0")); held != nil {
		t.Errorf("w0, which runs no static pod, holds %d", len(held))
	}
	for addr := range records {
		delete(records, addr) // the binary implementation: units, no pods
	}
	if held, _ := plan(old, next, m0); held != nil {
		t.Errorf("a master whose control plane runs as units holds %d static pods", len(held))
	}

	hold, release, back := holdScript(held), releaseScript(held), podsBackScript(held)
	for _, want := range []string{
		"mv -f '/etc/kubernetes/manifests/kube-apiserver.yaml' '/var/lib/eggo/manifests-held/kube-apiserver.yaml'",
		`labels."io.kubernetes.pod.name"==etcd-m0`,
	} {
		if !strings.Contains(hold, want) {
			t.Errorf("the hold script lacks %q:\n%s", want, hold)
		}
	}
	if want := "if [ -f '/var/lib/eggo/manifests-held/etcd.yaml' ]; then if [ -f '/etc/kubernetes/manifests/etcd.yaml' ]; then rm -f '/var/lib/eggo/manifests-held/etcd.yaml'; else mv -f"; !strings.Contains(release, want) {
		t.Errorf("the release script does not keep a manifest written meanwhile (%q):\n%s", want, release)
	}
	for _, want := range []string{"--kubeconfig '/etc/kubernetes/admin.conf' get --raw /readyz >/dev/null && sleep 3 &&", `"has no sandbox yet"`, "kube-scheduler-m0"} {
		if !strings.Contains(back, want) {
			t.Errorf("the wait after the restart lacks %q:\n%s", want, back)
		}
	}
	for name, script := range map[string]string{"hold": hold, "release": release, "back": back} {
		if out, err := exec.Command("sh", "-n", "-c", script).CombinedOutput(); err != nil {
			t.Errorf("sh -n of the %s script: %v\n%s\n%s", name, err, out, script)
		}
	}
}

// TestReleaseScriptRuns: the release script, run by sh in a mount namespace
// of its own (a tmpfs over /var/lib: the machine's files are not touched),
// puts a held manifest back; a manifest written again meanwhile (a later
// apply found it missing) wins, and its held copy goes; the held directory
// goes once empty. Run twice, it changes nothing more.
func TestReleaseScriptRuns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a mount namespace needs root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	dir := "/var/lib/eggotest/manifests"
	pods := []service{
		{UnitName: "kube-apiserver.yaml", Pod: &staticPod{ManifestDir: dir, PodName: "kube-apiserver-m0"}},
		{UnitName: "etcd.yaml", Pod: &staticPod{ManifestDir: dir, PodName: "etcd-m0"}},
	}
	release := releaseScript(pods)
	script := fmt.Sprintf(`set -e
mount -t tmpfs tmpfs /var/lib
mkdir -p %[1]s %[2]s
echo held-apiserver >%[2]s/kube-apiserver.yaml
echo held-etcd >%[2]s/etcd.yaml
echo rewritten-etcd >%[1]s/etcd.yaml
sh -e -c %[3]s
sh -e -c %[3]s
held=gone; [ -e %[2]s ] && held="$(ls -A %[2]s)"
echo "apiserver=$(cat %[1]s/kube-apiserver.yaml) etcd=$(cat %[1]s/etcd.yaml) held=$held"
`, dir, staticPodsHeldDir, shell.Quote(release))
	out, err := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s\nthe release script:\n%s", err, out, release)
	}
	if got, want := strings.TrimSpace(string(out)), "apiserver=held-apiserver etcd=rewritten-etcd held=gone"; got != want {
		t.Errorf("after the release script: %q, want %q\n%s", got, want, release)
	}
}
