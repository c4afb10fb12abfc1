package kube

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// TestPodMasterKubeletWaitsForItsControlPlane: the kubelet of a pod
// implementation master is healthy once the static pods it runs are its
// pods and the apiserver stayed ready while the load balancers take it
// back — the etcd pod too when etcd runs as one — and the shell parses.
func TestPodMasterKubeletWaitsForItsControlPlane(t *testing.T) {
	c := upgradeCluster("1.37.2", "")
	c.Implementation, c.EtcdImplementation = resources.ImplementationPod, resources.ImplementationPod
	m0 := c.Nodes[0]
	health := Kubelet(c, m0).Health
	for _, want := range []string{
		"[ ! -f '/etc/kubernetes/manifests/kube-apiserver.yaml' ] ||",
		"get --raw '/api/v1/nodes/m0/proxy/pods'",
		`labels."io.kubernetes.pod.name"==kube-apiserver-m0`,
		`labels."io.kubernetes.pod.name"==etcd-m0`,
		"get --raw /readyz >/dev/null && sleep 3 &&",
		"kube-scheduler-m0",
	} {
		if !strings.Contains(health, want) {
			t.Errorf("the pod master's kubelet health does not have %q:\n%s", want, health)
		}
	}
	if out, err := exec.Command("sh", "-n", "-c", health).CombinedOutput(); err != nil {
		t.Errorf("sh -n: %v\n%s\n%s", err, out, health)
	}
	if h := Kubelet(c, c.Nodes[2]).Health; strings.Contains(h, "proxy/pods") {
		t.Errorf("a worker's kubelet waits for a control plane: %s", h)
	}
	c.Implementation, c.EtcdImplementation = resources.ImplementationBinary, resources.ImplementationBinary
	if h := Kubelet(c, m0).Health; strings.Contains(h, "proxy/pods") {
		t.Errorf("a binary implementation master's kubelet waits for static pods: %s", h)
	}
}
