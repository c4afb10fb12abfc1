package kube

import (
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
	"sigs.k8s.io/yaml"
)

// TestStaticPodControlPlane: in the pod implementation each control-plane
// component is a manifest under config_dir/manifests rendered from the same
// flags as its unit, with kubeadm's probes and priority, the bundle's image,
// and a dependency on the master's kubelet (which no longer waits for the
// apiserver it runs); every kubelet reads the manifests directory.
func TestStaticPodControlPlane(t *testing.T) {
	c := &resources.Cluster{Name: "c", KubernetesVersion: "1.31.4", ConfigDir: "/etc/kubernetes",
		Network:   resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16"},
		ExtraArgs: map[string]map[string]string{"kube-apiserver": {"v": "2"}},
		Nodes: []resources.Node{
			{Name: "m0", Address: "10.0.0.11", Roles: []string{"master", "etcd"}},
			{Name: "w0", Address: "10.0.0.21", Roles: []string{"worker"}},
		}}
	binary := services(t, c)
	c.Implementation = resources.ImplementationPod
	pod := services(t, c)

	for _, comp := range []string{resources.CompAPIServer, resources.CompControllerManager, resources.CompScheduler} {
		addr := resources.ServiceAddr(comp, "m0")
		s := parseService(pod[addr].Attrs)
		if s.Pod == nil || s.UnitName != comp+".yaml" || s.unitPath() != "/etc/kubernetes/manifests/"+comp+".yaml" {
			t.Fatalf("%s: static pod %+v at %s, want /etc/kubernetes/manifests/%s.yaml", addr, s.Pod, s.unitPath(), comp)
		}
		if s.Pod.Image != "registry.k8s.io/"+comp+":v1.31.4" || s.Pod.Archive != "/var/lib/eggo/control-plane/"+comp+".tar" || s.Pod.PodName != comp+"-m0" {
			t.Errorf("%s: %+v", addr, s.Pod)
		}
		var m struct {
			Metadata struct {
				Name, Namespace string
				Labels          map[string]string
			}
			Spec struct {
				HostNetwork       bool   `json:"hostNetwork"`
				PriorityClassName string `json:"priorityClassName"`
				Containers        []struct {
					Image, Name   string
					Command       []string
					LivenessProbe struct {
						HTTPGet struct {
							Path string
							Port int
						} `json:"httpGet"`
					} `json:"livenessProbe"`
					StartupProbe   map[string]any `json:"startupProbe"`
					ReadinessProbe map[string]any `json:"readinessProbe"`
				}
			}
		}
		if err := yaml.Unmarshal([]byte(s.unitText(map[string]any{"/a": "1"})), &m); err != nil {
			t.Fatalf("%s: the manifest is not YAML: %v\n%s", addr, err, s.Unit)
		}
		ctr := m.Spec.Containers[0]
		if m.Metadata.Name != comp || m.Metadata.Namespace != "kube-system" || m.Metadata.Labels["tier"] != "control-plane" ||
			len(m.Metadata.Labels[configLabel]) != 32 || !m.Spec.HostNetwork || m.Spec.PriorityClassName != "system-node-critical" ||
			ctr.Image != s.Pod.Image || ctr.StartupProbe == nil {
			t.Errorf("%s: manifest %+v", addr, m)
		}
		// The flags are the unit's, one description rendered twice.
		unit := parseService(binary[addr].Attrs).Unit
		for _, arg := range ctr.Command[1:] {
			if !strings.Contains(unit, arg) {
				t.Errorf("%s: the pod's %s is not in the unit:\n%s", addr, arg, unit)
			}
		}
		if strings.Count(unit, "--") != len(ctr.Command)-1 {
			t.Errorf("%s: the pod has %d flags, the unit %d", addr, len(ctr.Command)-1, strings.Count(unit, "--"))
		}
		if !strings.Contains(strings.Join(pod[addr].DependsOn, " "), `service.kubelet["m0"]`) {
			t.Errorf("%s waits for %v, want m0's kubelet", addr, pod[addr].DependsOn)
		}
		if comp == resources.CompAPIServer {
			if ctr.LivenessProbe.HTTPGet.Path != "/livez" || ctr.LivenessProbe.HTTPGet.Port != 6443 || ctr.ReadinessProbe == nil {
				t.Errorf("the apiserver's probes: %+v", ctr)
			}
			if !strings.Contains(strings.Join(ctr.Command, " "), "--v=2") {
				t.Errorf("extra_args do not reach the pod: %v", ctr.Command)
			}
		}
	}
	kubelet := pod[`service.kubelet["m0"]`]
	if deps := strings.Join(kubelet.DependsOn, " "); strings.Contains(deps, "kube-apiserver") {
		t.Errorf("m0's kubelet waits for %s: the apiserver it runs cannot come first", deps)
	}
	for _, f := range parseService(pod[`service.kubelet["w0"]`].Attrs).Files {
		if f.Path == "/etc/kubernetes/kubelet/config.yaml" && !strings.Contains(f.Content.(string), "staticPodPath: /etc/kubernetes/manifests\n") {
			t.Errorf("the kubelet's configuration lacks staticPodPath:\n%s", f.Content)
		}
	}
	if deps := strings.Join(pod[`service.kube-proxy["m0"]`].DependsOn, " "); !strings.Contains(deps, `service.kube-apiserver["m0"]`) {
		t.Errorf("m0's kube-proxy waits for %s, want its apiserver too", deps)
	}
	// A changed file changes the manifest (the kubelet restarts the pod).
	s := parseService(pod[resources.ServiceAddr(resources.CompScheduler, "m0")].Attrs)
	if s.unitText(map[string]any{"/a": "1"}) == s.unitText(map[string]any{"/a": "2"}) {
		t.Errorf("the manifest does not change with its files")
	}
}

func services(t *testing.T, c *resources.Cluster) map[string]resources.Desired {
	t.Helper()
	ds, err := componentServices(c)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]resources.Desired{}
	for _, d := range ds {
		out[d.Addr] = d
	}
	return out
}

// TestSwitchImplementationPlan: a cluster whose implementation changes
// plans an update of each control-plane service (rolled like a restart),
// naming the switch — not a replacement, which would remove its files — and
// a refresh that finds the static pod running has nothing more to do.
func TestSwitchImplementationPlan(t *testing.T) {
	binary, pod := schedulerBothWays(t)

	for _, tt := range []struct {
		name      string
		from, to  resources.Desired
		wantWords []string
	}{
		{"binary → pod", binary, pod, []string{"implementation: systemd unit kube-scheduler.service → static pod /etc/kubernetes/manifests/kube-scheduler.yaml", "replaces the static pod"}},
		{"pod → binary", pod, binary, []string{"implementation: static pod /etc/kubernetes/manifests/kube-scheduler.yaml → systemd unit kube-scheduler.service", "restarts kube-scheduler.service"}},
	} {
		ch := planOf(t, recorded(tt.from, healthyLive(tt.from)), tt.to)
		if ch.Action != resources.Update {
			t.Errorf("%s: %s (%s), want an update", tt.name, ch.Action, reasonText(ch))
		}
		for _, w := range tt.wantWords {
			if !strings.Contains(reasonText(ch), w) {
				t.Errorf("%s: reasons %q lack %q", tt.name, reasonText(ch), w)
			}
		}
	}
	if ch := planOf(t, recorded(pod, healthyLive(pod)), pod); ch.Action != resources.NoOp {
		t.Errorf("a running static pod: %s (%s), want no change", ch.Action, reasonText(ch))
	}
	stopped := healthyLive(pod)
	stopped.Active = "not-running"
	if ch := planOf(t, recorded(pod, stopped), pod); ch.Action != resources.Update || !strings.Contains(reasonText(ch), "not-running") {
		t.Errorf("a static pod not running: %s (%s), want an update naming it", ch.Action, reasonText(ch))
	}
}

// schedulerBothWays is m0's scheduler of a one-master cluster as a systemd
// unit and as a static pod, its files' contents known.
func schedulerBothWays(t *testing.T) (binary, pod resources.Desired) {
	t.Helper()
	c := &resources.Cluster{Name: "c", KubernetesVersion: "1.31.4", ConfigDir: "/etc/kubernetes",
		Network: resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16"},
		Nodes:   []resources.Node{{Name: "m0", Address: "10.0.0.11", Roles: []string{"master", "etcd"}}}}
	addr := resources.ServiceAddr(resources.CompScheduler, "m0")
	binary = withContents(services(t, c)[addr])
	c.Implementation = resources.ImplementationPod
	pod = withContents(services(t, c)[addr])
	return binary, pod
}

// withContents gives every file of d a known content, as an apply has them
// once the certificates exist.
func withContents(d resources.Desired) resources.Desired {
	s := parseService(d.Attrs)
	for i := range s.Files {
		s.Files[i].Content, s.Files[i].Kubeconfig = "content of "+s.Files[i].Path, nil
	}
	a := s.attrs()
	a[svcAddress], a[svcConnection] = d.Attrs[svcAddress], d.Attrs[svcConnection]
	d.Attrs = a
	return d
}
