package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// clusterScoped are the kinds the components hold that no namespace holds.
var clusterScoped = map[string]bool{"Namespace": true, "CustomResourceDefinition": true, "ClusterRole": true,
	"ClusterRoleBinding": true, "ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true}

// TestComponents: each provider's components are what clusterctl
// requires (one Namespace holding every namespaced object, a Deployment
// whose container is "manager", the CRDs with the contract label) and
// what eggo's least privilege asks (the generated role, bound to the
// provider's own ServiceAccount); every image is ${EGGO_IMAGE}.
func TestComponents(t *testing.T) {
	out := t.TempDir()
	if err := write(filepath.Join("..", ".."), out, "v0.1.0", "eggo.io/eggo:t1"); err != nil {
		t.Fatal(err)
	}
	for _, p := range providers {
		dir := filepath.Join(out, p.label(), "v0.1.0")
		objs, err := readObjects(filepath.Join(dir, p.componentsFile()))
		if err != nil {
			t.Fatal(err)
		}
		var namespaces []string
		kinds := map[string]int{}
		for _, o := range objs {
			kind, meta := o["kind"].(string), o["metadata"].(object)
			kinds[kind]++
			switch {
			case kind == "Namespace":
				namespaces = append(namespaces, meta["name"].(string))
			case !clusterScoped[kind] && meta["namespace"] != p.namespace:
				t.Errorf("%s: %s %s in namespace %v, want %s", p.label(), kind, meta["name"], meta["namespace"], p.namespace)
			case kind == "CustomResourceDefinition" && strings.HasSuffix(meta["name"].(string), "."+p.group):
				labels, _ := meta["labels"].(object)
				if labels["cluster.x-k8s.io/v1beta2"] != "v1alpha1" {
					t.Errorf("%s: CRD %s without the contract label", p.label(), meta["name"])
				}
			}
		}
		if len(namespaces) != 1 || namespaces[0] != p.namespace {
			t.Errorf("%s: namespaces %v, want exactly %s", p.label(), namespaces, p.namespace)
		}
		text, _ := os.ReadFile(filepath.Join(dir, p.componentsFile()))
		if strings.Contains(string(text), "eggo.io/eggo:dev") || !strings.Contains(string(text), "image: ${EGGO_IMAGE:=eggo.io/eggo:t1}") {
			t.Errorf("%s: an image that is not ${EGGO_IMAGE:=eggo.io/eggo:t1}", p.label())
		}
		if !strings.Contains(string(text), "- --provider="+p.flag) || !strings.Contains(string(text), "name: manager") {
			t.Errorf("%s: no manager container running eggo-capi --provider=%s", p.label(), p.flag)
		}
		wantDeployments := map[bool]int{true: 2, false: 1}[p.gitops]
		if kinds["Deployment"] != wantDeployments || kinds["ClusterRoleBinding"] < 1 || kinds["ServiceAccount"] < 1 {
			t.Errorf("%s: kinds %v", p.label(), kinds)
		}
		var md struct {
			APIVersion    string `json:"apiVersion"`
			Kind          string `json:"kind"`
			ReleaseSeries []struct {
				Major, Minor int
				Contract     string
			} `json:"releaseSeries"`
		}
		data, err := os.ReadFile(filepath.Join(dir, "metadata.yaml"))
		if err != nil || yaml.UnmarshalStrict(data, &md) != nil || md.Kind != "Metadata" || len(md.ReleaseSeries) != 1 || md.ReleaseSeries[0].Contract != "v1beta2" {
			t.Errorf("%s: metadata.yaml %+v (%v)", p.label(), md, err)
		}
	}
	tmpl, err := readObjects(filepath.Join(out, "infrastructure-eggo", "v0.1.0", "cluster-template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, o := range tmpl {
		kinds = append(kinds, o["kind"].(string))
	}
	if got := strings.Join(kinds, " "); got != "Cluster SSHCluster SSHMachineTemplate EggoControlPlane SSHMachineTemplate EggoConfigTemplate MachineDeployment" {
		t.Errorf("the cluster template's kinds: %s", got)
	}
}

// TestComponentsLeaderElection: every manager runs --leader-elect, so the
// role bound to its ServiceAccount grants the Lease it holds (a manager
// without it never leads: it waits forever and reconciles nothing).
func TestComponentsLeaderElection(t *testing.T) {
	out := t.TempDir()
	if err := write(filepath.Join("..", ".."), out, "v0.1.0", "eggo.io/eggo:t1"); err != nil {
		t.Fatal(err)
	}
	for _, p := range providers {
		objs, err := readObjects(filepath.Join(out, p.label(), "v0.1.0", p.componentsFile()))
		if err != nil {
			t.Fatal(err)
		}
		if !grants(objs, p.name(), "coordination.k8s.io", "leases", "get", "create", "update") {
			t.Errorf("%s: ClusterRole %s grants no get, create and update of leases: its manager cannot lead", p.label(), p.name())
		}
	}
}

// grants says whether ClusterRole role among objs allows every verb on
// resource of group.
func grants(objs []object, role, group, resource string, verbs ...string) bool {
	for _, o := range objs {
		if o["kind"] != "ClusterRole" || o["metadata"].(object)["name"] != role {
			continue
		}
		allowed := map[string]bool{}
		rules, _ := o["rules"].([]any)
		for _, r := range rules {
			r, _ := r.(object)
			if contains(r["apiGroups"], group) && contains(r["resources"], resource) {
				for _, v := range r["verbs"].([]any) {
					allowed[v.(string)] = true
				}
			}
		}
		for _, v := range verbs {
			if !allowed[v] {
				return false
			}
		}
		return true
	}
	return false
}

func contains(list any, s string) bool {
	items, _ := list.([]any)
	for _, i := range items {
		if i == s {
			return true
		}
	}
	return false
}
