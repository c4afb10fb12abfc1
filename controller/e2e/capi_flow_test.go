package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// capiCluster is the Cluster API cluster's name (and its EggoCluster's).
const capiCluster = "capw"

// clusterAPIOnTestbed is issue 29's run on real hosts, on m's management
// cluster once the GitOps run gave its hosts back: `clusterctl init` installs
// Cluster API's core (make capi-parts), eggo-certs for cert-manager and
// eggo's three providers from their clusterctl repository; a Cluster from
// `clusterctl generate cluster` (eggo's load balancer on ww1, a master and
// a MachineDeployment's worker from the pool wm, ww0, ww2) comes up
// Available through eggo's Jobs; `clusterctl get kubeconfig` reaches it as
// the control plane's own client, never the admin; every Machine is Ready
// and up to date; the conformance smoke judges it; the MachineDeployment
// scales 1 → 2 (the control plane's manager killed meanwhile) → 1 and the
// released host is as it was; deleting the Cluster destroys it and gives every host back
// as it was.
func clusterAPIOnTestbed(t *testing.T, m *management) {
	mg := m.mg
	lap := newLaps(t)
	diag := func() string { return diagnoseCAPI(mg) }
	cc := newClusterctl(t, m.capi, m.repo, m.image, mg.kubeconfig)
	cc.run(nil, "init", "--core", "cluster-api:"+capiVersion, "--bootstrap", "eggo:v0.1.0", "--control-plane", "eggo:v0.1.0",
		"--infrastructure", "eggo:v0.1.0", "--wait-providers", "--wait-provider-timeout", "600")
	lap("clusterctl init: Cluster API %s, eggo-certs and eggo's three providers running", capiVersion)

	capiPool(t, m)
	gen := cc.run([]string{"EGGO_BUNDLE_PATH=" + m.bundlePath, "EGGO_POD_CIDR=10.245.0.0/16", "EGGO_SERVICE_CIDR=10.33.0.0/16"},
		"generate", "cluster", capiCluster, "--infrastructure", "eggo:v0.1.0", "--kubernetes-version", "v"+k8sVersion,
		"--control-plane-machine-count", "1", "--worker-machine-count", "1", "--target-namespace", ns)
	objs := yamlDocs(t, gen)
	for _, o := range objs {
		if o["kind"] == "EggoControlPlane" {
			testbedEggo(path(o, "spec", "eggo"))
		}
	}
	mg.apply(jsonDocs(t, objs))
	waitFor(t, "the Cluster Available", 15*time.Minute, func() (bool, string) {
		return capiCondition(mg, "cluster", capiCluster, "Available") == "True", capiSummary(mg)
	}, diag)
	lap("a Cluster from clusterctl generate cluster is Available")

	// clusterctl get kubeconfig: the control plane's client, not the admin.
	if typ := mg.run("-n", ns, "get", "secret", capiCluster+"-kubeconfig", "-o", "jsonpath={.type}"); typ != "cluster.x-k8s.io/secret" {
		t.Errorf("Secret %s-kubeconfig is of type %q, want cluster.x-k8s.io/secret", capiCluster, typ)
	}
	work := kube{t: t, kubectl: m.kubectl, kubeconfig: filepath.Join(t.TempDir(), capiCluster+".kubeconfig")}
	writeFile(t, work.kubeconfig, cc.run(nil, "get", "kubeconfig", capiCluster, "-n", ns))
	if who := work.run("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"); who != "eggo:client:capi" {
		t.Errorf("clusterctl get kubeconfig authenticates as %q, want eggo:client:capi (the control plane's own client)", who)
	}
	waitFor(t, "both Machines' Nodes Ready", 10*time.Minute, func() (bool, string) {
		out, _ := work.try("get", "nodes", "--no-headers")
		return readyNodes(out) == 2, out
	}, diag)
	waitFor(t, "every Machine Ready and up to date", 10*time.Minute, func() (bool, string) {
		out := cc.run(nil, "describe", "cluster", capiCluster, "-n", ns)
		return allMachinesReady(t, mg), out
	}, diag)
	lap("both Nodes Ready:\n%s", cc.run(nil, "describe", "cluster", capiCluster, "-n", ns))
	if m.smoke != nil {
		sum, err := m.smoke.Run(context.Background(), work.kubeconfig)
		if err != nil {
			t.Error(err)
		}
		lap("conformance against the Cluster API cluster: %s", sum)
	}

	// The MachineDeployment scales 1 → 2 → 1: the new Machine takes the
	// pool's last host and joins; the one scaled away gives its host back
	// as it was.
	md := capiCluster + "-md-0"
	mg.run("-n", ns, "scale", "machinedeployment", md, "--replicas=2")
	// The control plane's manager is killed as the new Machine comes: its
	// next leader picks the work up from the objects alone.
	mg.run("-n", "eggo-system", "delete", "pod", "-l", "app.kubernetes.io/name=eggo-capi-controlplane", "--wait=false")
	waitFor(t, "the second worker's Node Ready", 20*time.Minute, func() (bool, string) {
		out, _ := work.try("get", "nodes", "--no-headers")
		return readyNodes(out) == 3, out + capiSummary(mg)
	}, diag)
	if refs := mg.run("-n", ns, "get", "eggocluster", capiCluster, "-o", "jsonpath={.spec.sshKeySecretRef.name} {.spec.additionalSSHKeySecretRefs[*].name}"); refs != capiCluster+"-ssh "+capiCluster+"-ssh-b" {
		t.Errorf("the EggoCluster's SSH key Secrets with ww2 in: %q, want %s-ssh and, additional, %[2]s-ssh-b", refs, capiCluster)
	}
	lap("scaled 1 → 2: three Nodes Ready (ww2 reached with its own key Secret)")
	claimed := claimedHosts(t, mg)
	mg.run("-n", ns, "scale", "machinedeployment", md, "--replicas=1")
	var released []string
	waitFor(t, "a worker's host released", 15*time.Minute, func() (bool, string) {
		now := claimedHosts(t, mg)
		released = nil
		for _, h := range claimed {
			if !slices.Contains(now, h) {
				released = append(released, h)
			}
		}
		return len(released) == 1, fmt.Sprintf("claimed %v, was %v\n%s", now, claimed, capiSummary(mg))
	}, diag)
	if out := work.run("get", "nodes", "--no-headers"); readyNodes(out) != 2 {
		t.Errorf("after scaling 2 → 1: %s", out)
	}
	m.checkTreesAsBefore(t, "scaling the MachineDeployment down", released...)
	lap("scaled 2 → 1: %s given back as it was", released[0])

	// Deleting the Cluster destroys it through its EggoCluster and gives
	// every host back.
	mg.run("-n", ns, "delete", "cluster", capiCluster, "--wait=false")
	waitFor(t, "the Cluster deleted", 15*time.Minute, func() (bool, string) {
		out, err := mg.try("-n", ns, "get", "cluster", capiCluster, "-o", "name")
		return err != nil && strings.Contains(out, "NotFound"), capiSummary(mg)
	}, diag)
	if h := claimedHosts(t, mg); len(h) != 0 {
		t.Errorf("hosts still claimed after the Cluster's deletion: %v", h)
	}
	// Destroyed, not orphaned: every host Available again, none
	// NeedsCleanup (the SSHMachines saw eggo's destroy Job run).
	if phases := mg.run("-n", ns, "get", "sshhosts", "-o", "jsonpath={.items[*].status.phase}"); strings.Trim(strings.ReplaceAll(phases, "Available", ""), " ") != "" {
		t.Errorf("the hosts' phases after the Cluster's deletion: %s, want Available each", phases)
	}
	m.checkTreesAsBefore(t, "deleting the Cluster", workloadHosts...)
	lap("the Cluster deleted: every host given back as it was")
}

// capiPool makes the SSHHosts: wm, ww0 and ww2 in the pool "default",
// ww1 in "load-balancers", each with its pinned host key, reached with
// the testbed's key from a Secret that opts in to the cluster (ww2's
// another Secret: the EggoCluster mounts both); and the
// bundle's claim, a read-only hostPath volume of the bundles every
// testbed host sees.
func capiPool(t *testing.T, m *management) {
	t.Helper()
	mg := m.mg
	for _, secret := range []string{capiCluster + "-ssh", capiCluster + "-ssh-b"} {
		mg.run("-n", ns, "create", "secret", "generic", secret, "--type=kubernetes.io/ssh-auth", "--from-file=ssh-privatekey="+m.tb.Hosts[0].KeyFile)
		mg.run("-n", ns, "annotate", "secret", secret, v1alpha1.AnnotationSecretClusters+"="+capiCluster)
	}
	keys := hostKeys(t, m.tb)
	var objs []map[string]any
	for _, h := range workloadHosts {
		pool, secret := "default", capiCluster+"-ssh"
		switch h {
		case "ww1":
			pool = "load-balancers"
		case "ww2": // the last host of the pool (taken by name): its own key Secret
			secret = capiCluster + "-ssh-b"
		}
		if keys[h] == "" {
			t.Fatalf("no ed25519 host key of %s in %s", h, m.tb.Hosts[0].KnownHostsFile)
		}
		objs = append(objs, map[string]any{"apiVersion": "infrastructure.eggo.io/v1alpha1", "kind": "SSHHost",
			"metadata": map[string]any{"name": h, "namespace": ns},
			"spec": map[string]any{"pool": pool, "address": m.addr[h], "user": m.tb.Hosts[0].User, "hostKey": keys[h],
				"sshKeySecretRef": map[string]any{"name": secret}}})
	}
	pv := "eggo-bundle-" + ns
	objs = append(objs,
		map[string]any{"apiVersion": "v1", "kind": "PersistentVolume", "metadata": map[string]any{"name": pv},
			"spec": map[string]any{"capacity": map[string]any{"storage": "1Gi"}, "accessModes": []string{"ReadOnlyMany"},
				"storageClassName": "", "persistentVolumeReclaimPolicy": "Retain",
				"hostPath": map[string]any{"path": bundleMount, "type": "Directory"},
				"claimRef": map[string]any{"namespace": ns, "name": "eggo-bundle"}}},
		map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": map[string]any{"name": "eggo-bundle", "namespace": ns},
			"spec": map[string]any{"accessModes": []string{"ReadOnlyMany"}, "storageClassName": "", "volumeName": pv,
				"resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}})
	mg.apply(jsonDocs(t, objs))
}

// testbedEggo sets what the testbed's hosts need of eggo (the runtime
// block the GitOps run's configuration has) and CoreDNS answering the
// cluster's names only (the hosts have no resolver to forward to).
func testbedEggo(eggo map[string]any) {
	eggo["runtime"] = map[string]any{
		"restrictOOMScoreAdj": true, "cgroupRootPerNode": true, "imageGCHighPercent": 100,
		"evictionHard": map[string]any{"memory.available": "100Mi", "nodefs.available": "1Gi", "imagefs.available": "1Gi", "nodefs.inodesFree": "5%"},
	}
	eggo["addons"] = map[string]any{"coreDNS": true, "coreDNSUpstream": []string{}}
}

// allMachinesReady says whether every Machine of ns is Ready and
// UpToDate (the control plane's own, whose UpToDate the control plane
// sets, as the MachineDeployment's).
func allMachinesReady(t *testing.T, mg kube) bool {
	t.Helper()
	var list struct {
		Items []struct {
			Status struct {
				Conditions []struct{ Type, Status string }
			}
		}
	}
	if err := json.Unmarshal([]byte(mg.run("-n", ns, "get", "machines", "-o", "json")), &list); err != nil {
		t.Fatal(err)
	}
	for _, m := range list.Items {
		ok := map[string]bool{}
		for _, c := range m.Status.Conditions {
			ok[c.Type] = c.Status == "True"
		}
		if !ok["Ready"] || !ok["UpToDate"] {
			return false
		}
	}
	return len(list.Items) > 0
}

// capiCondition is a condition's status on a Cluster API object of ns.
func capiCondition(mg kube, kind, name, typ string) string {
	out, _ := mg.try("-n", ns, "get", kind, name, "-o", fmt.Sprintf(`jsonpath={.status.conditions[?(@.type=="%s")].status}`, typ))
	return strings.TrimSpace(out)
}

// claimedHosts are the SSHHosts of ns a cluster claims.
func claimedHosts(t *testing.T, mg kube) []string {
	t.Helper()
	var list struct {
		Items []struct {
			Metadata struct{ Name string }
			Spec     struct {
				ClaimRef *struct{ Name string } `json:"claimRef"`
			}
		}
	}
	if err := json.Unmarshal([]byte(mg.run("-n", ns, "get", "sshhosts", "-o", "json")), &list); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range list.Items {
		if h.Spec.ClaimRef != nil {
			out = append(out, h.Metadata.Name)
		}
	}
	return out
}

func readyNodes(getNodes string) int {
	n := 0
	for _, l := range strings.Split(getNodes, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[1] == "Ready" {
			n++
		}
	}
	return n
}

// capiSummary is the Cluster API objects of ns, a line each.
func capiSummary(mg kube) string {
	out, _ := mg.try("-n", ns, "get", "cluster,eggocontrolplane,machines,sshmachines,sshhosts,eggocluster", "-o", "wide")
	return "\n" + out
}

// diagnoseCAPI is what a failure of the Cluster API run needs: its
// objects, the EggoCluster, the providers' and the controller's logs, the
// last Job's log.
func diagnoseCAPI(mg kube) string {
	var b strings.Builder
	b.WriteString(capiSummary(mg))
	dump(&b, mg,
		[]string{"-n", ns, "get", "eggocluster", capiCluster, "-o", "yaml"},
		[]string{"-n", ns, "get", "eggocontrolplane", "-o", "yaml"},
		[]string{"get", "pods", "-A", "-o", "wide"},
		[]string{"-n", "eggo-system", "logs", "deployment/eggo-capi-controlplane", "--tail=40"},
		[]string{"-n", "eggo-infrastructure-system", "logs", "deployment/eggo-capi-infrastructure", "--tail=30"},
		[]string{"-n", "capi-system", "logs", "deployment/capi-controller-manager", "--tail=30"},
		[]string{"-n", "eggo-system", "logs", "deployment/eggo-controller", "--tail=30"})
	lastJobLog(&b, mg, "-l", v1alpha1.LabelCluster+"="+capiCluster)
	return b.String()
}
