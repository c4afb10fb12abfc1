package kube

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"sigs.k8s.io/yaml"
)

func etcdPodCluster(nodes ...resources.Node) *resources.Cluster {
	return &resources.Cluster{Name: "c", KubernetesVersion: "1.31.4", ConfigDir: "/etc/kubernetes",
		Implementation: resources.ImplementationPod, EtcdImplementation: resources.ImplementationPod,
		Network: resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16"},
		Nodes:   nodes}
}

// TestEtcdStaticPod: with etcd_implementation = "pod" a member is kubeadm's
// static pod of the bundle's etcd image, with the unit's flags (and the
// metrics listener its probes ask), its data directory writable, the
// bootstrap environment file named for the image's etcd, waiting for its
// kubelet — whose containerd and kubelet roll in etcd's stage.
func TestEtcdStaticPod(t *testing.T) {
	m0 := resources.Node{Name: "m0", Address: "10.0.0.11", Roles: []string{"master", "etcd"}}
	w0 := resources.Node{Name: "w0", Address: "10.0.0.21", Roles: []string{"worker"}}
	c := etcdPodCluster(m0, w0)
	pods, err := EtcdMember{}.Expand(c)
	if err != nil {
		t.Fatal(err)
	}
	c.EtcdImplementation = resources.ImplementationBinary
	units, err := EtcdMember{}.Expand(c)
	if err != nil {
		t.Fatal(err)
	}
	pod, unit := parseService(pods[0].Attrs), parseService(units[0].Attrs)
	if pod.Pod == nil || pod.Pod.Image != c.Minor().Etcd || pod.Pod.Archive != "/var/lib/eggo/etcd-image/etcd.tar" || pod.unitPath() != "/etc/kubernetes/manifests/etcd.yaml" {
		t.Fatalf("the member's static pod: %+v at %s", pod.Pod, pod.unitPath())
	}
	if unit.Pod != nil || unit.UnitName != "etcd.service" {
		t.Errorf("etcd_implementation = binary: %s", unit.runnerText())
	}
	var m struct {
		Spec struct {
			Containers []struct {
				Image   string
				Command []string
				Env     []struct{ Name, Value string }
				Startup struct {
					HTTPGet struct {
						Host, Path, Scheme string
						Port               int
					} `json:"httpGet"`
				} `json:"startupProbe"`
				VolumeMounts []struct {
					MountPath string `json:"mountPath"`
					ReadOnly  bool   `json:"readOnly"`
				} `json:"volumeMounts"`
			}
		}
	}
	if err := yaml.Unmarshal([]byte(pod.Unit), &m); err != nil || len(m.Spec.Containers) != 1 {
		t.Fatalf("the manifest does not parse (%v):\n%s", err, pod.Unit)
	}
	ctr := m.Spec.Containers[0]
	for _, line := range strings.Split(unit.Unit, "\n") {
		if flag := strings.TrimSpace(strings.TrimSuffix(line, `\`)); strings.HasPrefix(flag, "--") && !strings.Contains(strings.Join(ctr.Command, " "), strings.Trim(flag, `'"`)) {
			t.Errorf("the unit's %s is not in the pod's command %v", flag, ctr.Command)
		}
	}
	if !strings.Contains(strings.Join(ctr.Command, " "), "--listen-metrics-urls="+etcdMetricsURL) {
		t.Errorf("the pod's etcd serves no metrics listener for its probes: %v", ctr.Command)
	}
	if p := ctr.Startup.HTTPGet; p.Host != "127.0.0.1" || p.Port != 2381 || p.Scheme != "HTTP" || !strings.HasPrefix(p.Path, "/health") {
		t.Errorf("startup probe %+v, want kubeadm's plain HTTP /health on 127.0.0.1:2381", p)
	}
	if len(ctr.Env) != 1 || ctr.Env[0].Name != etcdEnvironmentFile || ctr.Env[0].Value != "/etc/kubernetes/etcd/bootstrap.env" {
		t.Errorf("env %+v, want the bootstrap environment file", ctr.Env)
	}
	mounts := map[string]bool{}
	for _, v := range ctr.VolumeMounts {
		mounts[v.MountPath] = v.ReadOnly
	}
	if ro, ok := mounts["/var/lib/etcd"]; !ok || ro {
		t.Errorf("mounts %v: want /var/lib/etcd writable", mounts)
	}
	if ro, ok := mounts["/etc/kubernetes/etcd"]; !ok || !ro {
		t.Errorf("mounts %v: want /etc/kubernetes/etcd read-only", mounts)
	}
	if deps := strings.Join(pods[0].DependsOn, " "); !strings.Contains(deps, `service.kubelet["m0"]`) {
		t.Errorf("the member waits for %s, not for the kubelet that runs it", deps)
	}
	c.EtcdImplementation = resources.ImplementationPod
	svcs := services(t, c)
	for _, addr := range []string{`service.kubelet["m0"]`, `service.containerd["m0"]`} {
		if r := svcs[addr].Roll; r == nil || r.Group != "etcd" || r.Stage != stageEtcd {
			t.Errorf("%s rolls in %+v, want etcd's stage (it runs the member)", addr, r)
		}
	}
	if r := svcs[`service.kubelet["w0"]`].Roll; r == nil || r.Group == "etcd" {
		t.Errorf("the worker's kubelet rolls in %+v, want its own stage", r)
	}
}

// TestEtcdStaticPodOnMastersOnly: an etcd-only node has no kubelet to run
// its pod, and a worker's kubelet waits for the apiservers that wait for
// etcd: the error names the node and the setting.
func TestEtcdStaticPodOnMastersOnly(t *testing.T) {
	for _, roles := range [][]string{{"etcd"}, {"worker", "etcd"}} {
		c := etcdPodCluster(resources.Node{Name: "m0", Address: "10.0.0.11", Roles: []string{"master", "etcd"}},
			resources.Node{Name: "e0", Address: "10.0.0.12", Roles: roles})
		_, err := EtcdMember{}.Expand(c)
		if err == nil || !strings.Contains(err.Error(), "etcd_member.e0") || !strings.Contains(err.Error(), `etcd_implementation = "binary"`) {
			t.Errorf("static-pod etcd on a node with roles %v: %v", roles, err)
		}
	}
}

// TestEtcdSwitchRefused: a member recorded as a unit is not planned into a
// static pod (or back): the plan is refused, naming both.
func TestEtcdSwitchRefused(t *testing.T) {
	m0 := resources.Node{Name: "m0", Address: "10.0.0.11", Roles: []string{"master", "etcd"}}
	c := etcdPodCluster(m0)
	pods, _ := EtcdMember{}.Expand(c)
	c.EtcdImplementation = resources.ImplementationBinary
	units, _ := EtcdMember{}.Expand(c)
	prior := &resources.Object{Addr: units[0].Addr, Attrs: units[0].Attrs}
	_, err := EtcdMember{}.Plan(t.Context(), &resources.RunContext{}, prior, pods[0])
	if err == nil || !strings.Contains(err.Error(), "systemd unit etcd.service") || !strings.Contains(err.Error(), "static pod /etc/kubernetes/manifests/etcd.yaml") {
		t.Errorf("switching a member to a static pod: %v", err)
	}
	if err := refuseEtcdSwitch(prior, units[0]); err != nil {
		t.Errorf("the same runner: %v", err)
	}
}

// TestEtcdImageIsTheBundlesRelease: the image the members run, for each
// minor make bundle builds (1.31, 1.36, 1.37: the rows of
// tools/bundle/minors.tsv), is a release the bundle has a module for:
// tools/bundle/etcd/RELEASE requires go.etcd.io/etcd/server/v3 RELEASE.
func TestEtcdImageIsTheBundlesRelease(t *testing.T) {
	for _, v := range []string{"1.31.4", "1.36.5", "1.37.2"} {
		m, err := resources.MinorOf(v)
		if err != nil {
			t.Fatal(err)
		}
		release := "v" + strings.TrimSuffix(m.Etcd[strings.LastIndex(m.Etcd, ":")+1:], "-0")
		mod, err := os.ReadFile(filepath.Join("../../tools/bundle/etcd", release, "go.mod"))
		if err != nil {
			t.Errorf("1.%d's etcd image is %s, but the bundle has no module for it: %v", m.Minor, m.Etcd, err)
			continue
		}
		if !regexp.MustCompile(`(?m)^\s*(require )?go.etcd.io/etcd/server/v3 ` + regexp.QuoteMeta(release) + `$`).Match(mod) {
			t.Errorf("1.%d's etcd image is %s, but the bundle's etcd/%s module requires another release:\n%s", m.Minor, m.Etcd, release, mod)
		}
	}
}
