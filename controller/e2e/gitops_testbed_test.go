package e2e_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/resources"
)

// testbedRuntime is the runtime block both clusters need on the testbed:
// hosts without CAP_SYS_RESOURCE that share this machine's cgroup
// hierarchy and disk (the kubelet's default eviction and image collection
// thresholds are shares of the whole disk, and its collection would take
// the pause image no registry gives back). Inside a format string: %% is %.
const testbedRuntime = `  runtime {
    restrict_oom_score_adj = true
    cgroup_root_per_node   = true
    eviction_hard          = { "memory.available" = "100Mi", "nodefs.available" = "1Gi", "imagefs.available" = "1Gi", "nodefs.inodesFree" = "5%%" }
    image_gc_high_percent  = 100
  }`

const (
	k8sVersion = "1.36.5" // the default minor: the demo's, and the conformance smoke's
	ns         = "clusters"
	cluster    = "work"
	// stateNs is where the Jobs of ns keep the state, the saved plans and
	// the access Secrets: the samples' policy (stateNamespace.clusters)
	// and job_rbac.yaml, whose roles reach Secrets there only.
	stateNs = "clusters-state"
	// bundleMount is where every testbed host sees make bundle's bundles
	// (read-only): the Jobs mount it as a hostPath.
	bundleMount = "/srv/eggo-bundles"
)

// TestGitOpsOnTestbed is issue 17's end-to-end run, then issue 29's. The
// eggo CLI deploys a one-host management cluster whose bundle carries
// eggo's own image and Cluster API's core image; the controller and its
// CRD are installed from controller/config; then
// an EggoCluster, Manual approval, runs Jobs that deploy a workload
// cluster on two other hosts. On the way: the first apply's pod is killed
// mid-apply and the next Job converges from the state it left; a plan of
// the applied cluster is empty; a worker added to the spec waits for
// approval and the approved plan joins it; an edit after that approval
// is not applied under it; the hosts' keys are pinned in the state; no
// key or token is in any CR, ConfigMap, Job, pod, event or log; deleting
// the EggoCluster destroys the workload cluster and leaves its hosts as
// they were. Then the same management cluster becomes Cluster API's
// (clusterAPIOnTestbed).
func TestGitOpsOnTestbed(t *testing.T) {
	m := managementOnTestbed(t)
	mg, tb, addr, kubectl := m.mg, m.tb, m.addr, m.kubectl
	diag := func() string { return diagnose(mg) }

	// The workload cluster's SSH key, opted in to the EggoCluster by its
	// owner, and the EggoCluster (Manual approval) in the policy's image.
	keyFile := tb.Hosts[0].KeyFile
	mg.run("-n", ns, "create", "secret", "generic", cluster+"-ssh", "--type=kubernetes.io/ssh-auth", "--from-file=ssh-privatekey="+keyFile)
	mg.run("-n", ns, "annotate", "secret", cluster+"-ssh", v1alpha1.AnnotationSecretClusters+"="+cluster)
	spec := workloadSpec{addr: addr, workers: []string{"ww0"}, attempt: "1", bundlePath: m.bundlePath}
	// The admission policy is in force: a hostPath bundle is refused until
	// the platform admin allows it (the testbed's bundle is on the node).
	if out, err := runErr("", []byte(spec.yaml(t)), mg.kubectl, "--kubeconfig", mg.kubeconfig, "apply", "-f", "-"); err == nil ||
		!strings.Contains(out, "bundle.volume.hostPath is not allowed") {
		t.Fatalf("a hostPath bundle without the admin's switch: %v\n%s", err, out)
	}
	mg.run("-n", "eggo-system", "patch", "configmap", "eggo-policy", "--type=merge", "-p", `{"data":{"allowHostPathBundle":"true"}}`)
	// The API server reads the policy's parameters through an informer: a
	// moment after the edit, the same EggoCluster is admitted.
	waitFor(t, "the EggoCluster admitted once hostPath bundles are allowed", time.Minute, func() (bool, string) {
		out, err := runErr("", []byte(spec.yaml(t)), mg.kubectl, "--kubeconfig", mg.kubeconfig, "apply", "-f", "-")
		return err == nil, out
	}, diag)
	lap := newLaps(t)

	// 1. The first plan waits for approval and says what it does.
	c := waitPending(t, mg, "", diag)
	first := c.Status.LastPlanHash
	firstAdded := c.Status.PlanSummary.Add
	lap("first plan (a Job) awaits approval: %+v", *c.Status.PlanSummary)
	if s := c.Status.PlanSummary; s == nil || s.Add == 0 || s.Destroy != 0 || !plansNodes(s, "wm", "ww0") {
		t.Fatalf("first plan's summary %+v: want resources added on wm and ww0", s)
	}
	text := mg.run("-n", ns, "get", "configmap", c.Status.PlanRef, "-o", "jsonpath={.data.plan\\.txt}")
	if !namesWord(text, "ww0") || !namesWord(text, "wm") { // the plan's host key fingerprints can hold "wm"
		t.Errorf("the full plan in %s does not show the plan:\n%.2000s", c.Status.PlanRef, text)
	}
	time.Sleep(10 * time.Second)
	if jobs := mg.jobs(ns, cluster, v1alpha1.PhaseApply); len(jobs) != 0 {
		t.Fatalf("an apply Job started before approval: %s", jobs[0].Metadata.Name)
	}

	// 2. Approved, its apply Job's pod is killed mid-apply.
	approve(t, mg, first)
	killed := killMidApply(t, mg, first, diag)
	c = waitCondition(t, mg, v1alpha1.ConditionFailed, true, 5*time.Minute, diag)
	if c.Status.LastFailedPlanHash != first || isTrue(c, v1alpha1.ConditionReady) || c.Status.LastAppliedPlanHash != "" ||
		!strings.Contains(c.Status.LastFailure, "pod") {
		t.Fatalf("after the killed apply: %s", describe(c))
	}
	lap("apply Job %s killed midway and recorded: %s", killed, describe(c))

	// 3. Asked to plan again (the spec unchanged), the next plan starts
	// from what the killed run recorded: fewer additions; approved, it
	// converges.
	mg.run("-n", ns, "annotate", "eggocluster", cluster, v1alpha1.PlanRequestAnnotation+"=after-the-kill")
	c = waitPending(t, mg, first, diag)
	second := c.Status.LastPlanHash
	if s := c.Status.PlanSummary; s == nil || s.Add == 0 || s.Add >= firstAdded {
		t.Fatalf("the plan after the kill adds %+v, want fewer than the first plan's %d: the killed run's work was not kept", s, firstAdded)
	}
	lap("the plan after the kill adds %d (the first %d)", c.Status.PlanSummary.Add, firstAdded)
	// The plan Job deleted the plan it superseded: only the current
	// plan's ConfigMap (in ns) and Secret (in the state namespace) are left.
	for kind, in := range map[string]string{"configmap": ns, "secret": stateNs} {
		out := mg.run("-n", in, "get", kind, "-l", v1alpha1.LabelCluster+"="+cluster+","+v1alpha1.LabelContent+"=plan", "-o", "name")
		if want := kind + "/" + v1alpha1.PlanObjectName(cluster, second); strings.TrimSpace(out) != want {
			t.Fatalf("plan %ss after a new plan: %q, want %s only", kind, out, want)
		}
	}
	approve(t, mg, second)
	c = waitReady(t, mg, second, 10*time.Minute, diag)
	lap("approved, applied, Ready: %s", describe(c))
	if c.Status.StateNamespace != stateNs {
		t.Errorf("status.stateNamespace %q, want %s (the policy's stateNamespace.%s)", c.Status.StateNamespace, stateNs, ns)
	}
	if len(c.Status.Nodes) != 2 || !strings.HasPrefix(c.Status.Nodes[0].State, "Applied") {
		t.Errorf("status nodes %+v: want wm and ww0 applied", c.Status.Nodes)
	}

	// 4. The kubeconfig Secret reaches the workload cluster; a pod runs.
	work := workloadAccess(t, mg, kubectl)
	waitFor(t, "ww0 Ready in the workload cluster", 3*time.Minute, func() (bool, string) {
		out, _ := work.try("get", "nodes", "--no-headers")
		return nodeReady(out, "ww0"), out
	}, diag)
	runPause(t, work, "ww0")

	// 5. A plan of the applied cluster is empty (the Job's directory is
	// new each run: the kubeconfig eggo wrote comes back from its Secret).
	spec.attempt = "2"
	mg.apply(spec.yaml(t))
	c = waitObserved(t, mg, 5*time.Minute, diag)
	if s := c.Status.PlanSummary; s == nil || s.Add+s.Change+s.Destroy != 0 || !isTrue(c, v1alpha1.ConditionReady) ||
		condition(c, v1alpha1.ConditionReady).Reason != "NoChanges" {
		t.Fatalf("a plan of the applied cluster: %+v\n%s", c.Status.PlanSummary, describe(c))
	}
	lap("a plan of the applied cluster is empty, Ready stays")

	// 6. A worker added to the spec: its plan waits, approved it joins.
	spec.workers = []string{"ww0", "ww1"}
	mg.apply(spec.yaml(t))
	c = waitPending(t, mg, second, diag)
	join := c.Status.LastPlanHash
	if s := c.Status.PlanSummary; s == nil || s.Destroy != 0 || !plansNodes(s, "ww1") || plansNodes(s, "ww0") {
		t.Fatalf("the join's plan %+v: want additions on ww1 only", s)
	}
	lap("the join's plan awaits approval: %+v", *c.Status.PlanSummary)
	approve(t, mg, join)
	waitReady(t, mg, join, 10*time.Minute, diag)
	lap("approved, ww1 joined")
	waitFor(t, "ww1 Ready in the workload cluster", 3*time.Minute, func() (bool, string) {
		out, _ := work.try("get", "nodes", "--no-headers")
		return nodeReady(out, "ww1"), out
	}, diag)

	// 7. An edit after that approval is planned and waits: the approval
	// names the joined plan's hash, never the new one.
	spec.ww1Labels = `{ pool = "b" }`
	mg.apply(spec.yaml(t))
	c = waitPending(t, mg, join, diag)
	edited := c.Status.LastPlanHash
	time.Sleep(20 * time.Second)
	c = mg.eggoCluster(ns, cluster)
	for _, j := range mg.jobs(ns, cluster, v1alpha1.PhaseApply) {
		if j.Metadata.Annotations[v1alpha1.AnnotationPlanHash] == edited {
			t.Fatalf("the edit after approval was applied by %s under the approval of %.12s", j.Metadata.Name, join)
		}
	}
	// The cluster still serves the applied plan: Ready says so, and why.
	if c.Status.LastAppliedPlanHash != join || !isTrue(c, v1alpha1.ConditionApprovalPending) || !isTrue(c, v1alpha1.ConditionReady) ||
		condition(c, v1alpha1.ConditionReady).Reason != v1alpha1.ReasonAwaitingApproval {
		t.Fatalf("after an edit under an old approval: %s", describe(c))
	}
	if out := work.run("get", "node", "ww1", "--show-labels"); strings.Contains(out, "pool=b") {
		t.Fatalf("ww1 got the unapproved label: %s", out)
	}

	// 8. The hosts' keys are pinned in the state the Jobs keep.
	checkHostKeysPinned(t, mg, tb, "wm", "ww0", "ww1")
	// ww1 presents another key for a while: the next plan Job refuses it,
	// naming the host, and changes nothing.
	restored := swapHostKey(t, tb, "ww1", 90*time.Second)
	spec.attempt = "3"
	mg.apply(spec.yaml(t))
	waitFor(t, "the plan against a changed host key refused", 4*time.Minute, func() (bool, string) {
		c = mg.eggoCluster(ns, cluster)
		return c.Status.ObservedGeneration == c.Generation && c.Status.ActiveJob == "" && isTrue(c, v1alpha1.ConditionFailed), describe(c)
	}, diag)
	if !strings.Contains(c.Status.LastFailure, "HOST KEY MISMATCH") || !namesWord(c.Status.LastFailure, "ww1") || // the fingerprints can hold "ww1"
		c.Status.LastAppliedPlanHash != join || condition(c, v1alpha1.ConditionPlanned).Reason != "PlanFailed" {
		t.Fatalf("a plan against ww1's changed key: %s", describe(c))
	}
	lap("a host with a changed key is refused by the plan Job: %.200s", c.Status.LastFailure)
	restored()
	lap("ww1 has its own key again")

	// 9. No key or token outside Secrets.
	checkNoSecrets(t, mg, keyFile, work.kubeconfig)

	// 10. Deleting the EggoCluster destroys the workload cluster.
	mg.run("-n", ns, "delete", "eggocluster", cluster, "--wait=false")
	waitFor(t, "the EggoCluster destroyed and gone", 10*time.Minute, func() (bool, string) {
		c := mg.eggoCluster(ns, cluster)
		return c == nil, describe(c)
	}, diag)
	lap("deleted: destroyed through the finalizer")
	// The destroy took what the Jobs kept in the state namespace but the
	// state: no saved plan, no access Secret of a cluster that is gone.
	if out := mg.run("-n", stateNs, "get", "secrets", "-l", v1alpha1.LabelCluster+"="+cluster, "-o", "name"); strings.TrimSpace(out) != "secret/eggo-state-"+cluster {
		t.Errorf("Secrets of %s in %s after the destroy: %q, want the state's head alone", cluster, stateNs, out)
	}
	m.checkTreesAsBefore(t, "the destroy", "wm", "ww0", "ww1")

	// 11. The same management cluster as Cluster API's: clusterctl init,
	// and a Cluster of Machines on the hosts the EggoCluster gave back.
	clusterAPIOnTestbed(t, m)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// workloadSpec is the EggoCluster as the test edits it.
type workloadSpec struct {
	addr      map[string]string
	workers   []string
	attempt   string // a variable the configuration declares and nothing uses: a spec change that changes nothing
	ww1Labels string
	// bundlePath is the bundle's directory in the Jobs' bundle volume.
	bundlePath string
}

func (s workloadSpec) hcl() string {
	var b strings.Builder
	fmt.Fprintf(&b, `backend "kubernetes" {
  # A killed Job's Lease expires after lock_ttl (15 s): the next Job waits for it.
  lock_timeout = "3m"
}

variable "attempt" {
  type    = string
  default = "0"
}

cluster %q {
  kubernetes_version = %q
  packages           = "./packages"
  network {
    service_cidr = "10.33.0.0/16"
    pod_cidr     = "10.245.0.0/16"
  }
`+testbedRuntime+`
}

connection {
  user             = "root"
  private_key_file = "/var/run/eggo/ssh/ssh-privatekey"
}

node "wm" {
  address = %q
  roles   = ["master", "etcd"]
}
`, cluster, k8sVersion, s.addr["wm"])
	for _, w := range s.workers {
		fmt.Fprintf(&b, "\nnode %q {\n  address = %q\n  roles   = [\"worker\"]\n", w, s.addr[w])
		if w == "ww1" && s.ww1Labels != "" {
			fmt.Fprintf(&b, "  labels  = %s\n", s.ww1Labels)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

func (s workloadSpec) yaml(t *testing.T) string {
	t.Helper()
	doc := map[string]any{
		"apiVersion": "eggo.io/v1alpha1", "kind": "EggoCluster",
		"metadata": map[string]any{"name": cluster, "namespace": ns},
		"spec": map[string]any{
			"config":          map[string]any{"inline": s.hcl()},
			"variables":       map[string]string{"attempt": s.attempt},
			"bundle":          map[string]any{"path": s.bundlePath, "volume": map[string]any{"hostPath": map[string]any{"path": bundleMount, "type": "Directory"}}},
			"sshKeySecretRef": map[string]any{"name": cluster + "-ssh"},
			"approval":        "Manual",
			"deletionPolicy":  "Destroy",
			"jobDefaults":     map[string]any{"activeDeadlineSeconds": 1800, "backoffLimit": 0, "ttlSecondsAfterFinished": 3600},
		},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// installController applies controller/config (its image's tag set) and
// the Jobs' accounts for the namespace, and waits for the controller.
func installController(t *testing.T, mg kube, repo, image string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "config")
	run(t, "", "cp", "-r", filepath.Join(repo, "controller/config"), dir)
	tag := image[strings.LastIndex(image, ":")+1:]
	k := filepath.Join(dir, "kustomization.yaml")
	b, err := os.ReadFile(k)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "newTag: dev") {
		t.Fatalf("%s names no image tag to set", k)
	}
	// Quoted: a tag of digits only (git describe of some commits) is a number in YAML.
	writeFile(t, k, strings.Replace(string(b), "newTag: dev", fmt.Sprintf("newTag: %q", tag), 1))
	mg.run("apply", "--server-side", "-k", dir)
	// One tag names both images: the policy's jobImage is the controller's.
	if got := mg.run("-n", "eggo-system", "get", "configmap", "eggo-policy", "-o", "jsonpath={.data.jobImage}"); got != image {
		t.Fatalf("the policy's jobImage is %q, want the controller's image %s", got, image)
	}
	mg.run("create", "namespace", ns)
	mg.run("apply", "-f", filepath.Join(repo, "controller/config/samples/job_rbac.yaml"))
	// The Jobs' ServiceAccount reaches no Secret of ns, and Secrets of
	// its state namespace only.
	for where, want := range map[string]string{ns: "no", stateNs: "yes", "eggo-system": "no"} {
		out, _ := mg.try("auth", "can-i", "get", "secrets", "-n", where, "--as=system:serviceaccount:"+ns+":eggo-job")
		if strings.TrimSpace(out) != want {
			t.Fatalf("may %s/eggo-job get Secrets in %s? %q, want %s", ns, where, out, want)
		}
	}
	if out, err := mg.try("-n", "eggo-system", "rollout", "status", "deployment/eggo-controller", "--timeout=5m"); err != nil {
		t.Fatalf("the controller did not become available: %v\n%s\n%s", err, out, diagnose(mg))
	}
}

// diagnose is what a failure message needs: the EggoCluster, Jobs and
// pods, the controller's log, the last Job's log.
func diagnose(mg kube) string {
	var b strings.Builder
	dump(&b, mg,
		[]string{"-n", ns, "get", "eggocluster", cluster, "-o", "yaml"},
		[]string{"get", "jobs,pods", "-A", "-o", "wide"},
		[]string{"-n", ns, "get", "events", "--sort-by=.lastTimestamp"},
		[]string{"-n", "eggo-system", "logs", "deployment/eggo-controller", "--tail=40"})
	lastJobLog(&b, mg)
	return b.String()
}

// dump writes each kubectl command and what it printed.
func dump(b *strings.Builder, mg kube, commands ...[]string) {
	for _, args := range commands {
		out, _ := mg.try(args...)
		fmt.Fprintf(b, "$ kubectl %s\n%s\n", strings.Join(args, " "), out)
	}
}

// lastJobLog writes the end of the log of the newest Job of ns (of those
// the selector args pick).
func lastJobLog(b *strings.Builder, mg kube, selector ...string) {
	out, _ := mg.try(append([]string{"-n", ns, "get", "jobs", "--sort-by=.metadata.creationTimestamp", "-o", "name"}, selector...)...)
	if names := strings.Fields(out); len(names) > 0 {
		log, _ := mg.try("-n", ns, "logs", names[len(names)-1], "--tail=60")
		fmt.Fprintf(b, "$ kubectl logs %s\n%s\n", names[len(names)-1], log)
	}
}

// waitPending waits for a new plan (not prev) waiting for approval.
func waitPending(t *testing.T, mg kube, prev string, diag func() string) *v1alpha1.EggoCluster {
	t.Helper()
	var c *v1alpha1.EggoCluster
	waitFor(t, "a new plan awaiting approval", 6*time.Minute, func() (bool, string) {
		c = mg.eggoCluster(ns, cluster)
		if c == nil {
			return false, "no EggoCluster"
		}
		if isTrue(c, v1alpha1.ConditionFailed) && c.Status.ObservedGeneration == c.Generation && c.Status.ActiveJob == "" &&
			condition(c, v1alpha1.ConditionPlanned).Status == "False" {
			t.Fatalf("the plan failed: %s\n%s", describe(c), diag())
		}
		return c.Status.ObservedGeneration == c.Generation && c.Status.LastPlanHash != prev &&
			isTrue(c, v1alpha1.ConditionApprovalPending), describe(c)
	}, diag)
	return c
}

// waitObserved waits until the spec's generation is planned and no Job runs.
func waitObserved(t *testing.T, mg kube, timeout time.Duration, diag func() string) *v1alpha1.EggoCluster {
	t.Helper()
	var c *v1alpha1.EggoCluster
	waitFor(t, "the spec planned", timeout, func() (bool, string) {
		c = mg.eggoCluster(ns, cluster)
		return c != nil && c.Status.ObservedGeneration == c.Generation && c.Status.ActiveJob == "" &&
			condition(c, v1alpha1.ConditionPlanned).ObservedGeneration == c.Generation, describe(c)
	}, diag)
	return c
}

func waitCondition(t *testing.T, mg kube, typ string, want bool, timeout time.Duration, diag func() string) *v1alpha1.EggoCluster {
	t.Helper()
	var c *v1alpha1.EggoCluster
	waitFor(t, fmt.Sprintf("condition %s=%v", typ, want), timeout, func() (bool, string) {
		c = mg.eggoCluster(ns, cluster)
		return c != nil && isTrue(c, typ) == want && c.Status.ActiveJob == "", describe(c)
	}, diag)
	return c
}

// waitReady waits until the plan is applied and the cluster Ready, failing
// at once if the apply fails.
func waitReady(t *testing.T, mg kube, hash string, timeout time.Duration, diag func() string) *v1alpha1.EggoCluster {
	t.Helper()
	var c *v1alpha1.EggoCluster
	waitFor(t, "plan "+hash[:12]+" applied and Ready", timeout, func() (bool, string) {
		c = mg.eggoCluster(ns, cluster)
		if c != nil && c.Status.LastFailedPlanHash == hash {
			t.Fatalf("the apply of %.12s failed: %s\n%s", hash, describe(c), diag())
		}
		return c != nil && c.Status.LastAppliedPlanHash == hash && isTrue(c, v1alpha1.ConditionReady) &&
			!isTrue(c, v1alpha1.ConditionFailed) && c.Status.ActiveJob == "", describe(c)
	}, diag)
	return c
}

// approve runs the command the ApprovalPending condition prints, word for
// word, after checking it approves hash.
func approve(t *testing.T, mg kube, hash string) {
	t.Helper()
	msg := condition(mg.eggoCluster(ns, cluster), v1alpha1.ConditionApprovalPending).Message
	cmd, ok := strings.CutPrefix(msg, "approve with: kubectl ")
	if !ok || !strings.HasSuffix(cmd, v1alpha1.ApproveAnnotation+"="+hash) {
		t.Fatalf("ApprovalPending says %q: want the command approving %.12s", msg, hash)
	}
	mg.run(strings.Fields(cmd)...)
}

func plansNodes(s *v1alpha1.PlanSummary, names ...string) bool {
	for _, n := range names {
		found := false
		for _, p := range s.Nodes {
			found = found || (p.Name == n && len(p.Operations) > 0)
		}
		if !found {
			return false
		}
	}
	return true
}

// killMidApply waits for the approved plan's apply Job to have created
// some resources, then deletes its pod (SIGTERM, SIGKILL a second later).
func killMidApply(t *testing.T, mg kube, hash string, diag func() string) string {
	t.Helper()
	var name string
	waitFor(t, "the apply Job of "+hash[:12], 3*time.Minute, func() (bool, string) {
		for _, j := range mg.jobs(ns, cluster, v1alpha1.PhaseApply) {
			if j.Metadata.Annotations[v1alpha1.AnnotationPlanHash] == hash {
				name = j.Metadata.Name
				return true, ""
			}
		}
		return false, "no Job"
	}, diag)
	waitFor(t, "the apply Job "+name+" midway", 5*time.Minute, func() (bool, string) {
		log, _ := mg.try("-n", ns, "logs", "job/"+name)
		if strings.Contains(log, "Apply complete") {
			t.Fatalf("the apply finished before it could be killed:\n%s", log)
		}
		return strings.Count(log, "Creation complete") >= 8, fmt.Sprintf("%d resources created", strings.Count(log, "Creation complete"))
	}, diag)
	mg.run("-n", ns, "delete", "pod", "-l", "job-name="+name, "--grace-period=1", "--wait=false")
	return name
}

// workloadAccess writes the workload cluster's kubeconfig from its Secret.
func workloadAccess(t *testing.T, mg kube, kubectl string) kube {
	t.Helper()
	enc := mg.run("-n", stateNs, "get", "secret", v1alpha1.KubeconfigSecretName(cluster), "-o", "jsonpath={.data.value}")
	data, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || !strings.Contains(string(data), "client-key-data") {
		t.Fatalf("Secret %s holds no admin kubeconfig (%v)", v1alpha1.KubeconfigSecretName(cluster), err)
	}
	ca := mg.run("-n", stateNs, "get", "secret", v1alpha1.CASecretName(cluster), "-o", "jsonpath={.data}")
	if strings.Contains(ca, "tls.key") || !strings.Contains(ca, "tls.crt") {
		t.Fatalf("Secret %s holds %s: want tls.crt only", v1alpha1.CASecretName(cluster), ca)
	}
	path := filepath.Join(t.TempDir(), "work.kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return kube{t: t, kubectl: kubectl, kubeconfig: path}
}

func nodeReady(getNodes, name string) bool {
	for _, l := range strings.Split(getNodes, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == name && f[1] == "Ready" {
			return true
		}
	}
	return false
}

// pauseImage is the sandbox image of k8sVersion's minor, which its bundle
// carries.
func pauseImage() string {
	m, err := resources.MinorOf(k8sVersion)
	if err != nil {
		panic(err)
	}
	return m.Pause
}

// runPause runs the bundle's pause image on a node of the workload cluster.
func runPause(t *testing.T, work kube, node string) {
	t.Helper()
	work.apply(fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pause","namespace":"default"},
"spec":{"nodeName":%q,"containers":[{"name":"pause","image":%q,"imagePullPolicy":"Never"}]}}`, node, pauseImage()))
	waitFor(t, "a pod running in the workload cluster", 3*time.Minute, func() (bool, string) {
		out, _ := work.try("get", "pod", "pause", "-o", "jsonpath={.status.phase}")
		return out == "Running", out
	}, func() string { out, _ := work.try("describe", "pod", "pause"); return out })
}

// checkHostKeysPinned reads the state from its Secret: every host's key
// is pinned there, the key the testbed host has.
func checkHostKeysPinned(t *testing.T, mg kube, tb *nspawntest.Testbed, hosts ...string) {
	t.Helper()
	enc := mg.run("-n", stateNs, "get", "secret", "eggo-state-"+cluster, "-o", "jsonpath={.data.state}")
	data, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		HostKeys map[string]string `json:"host_keys"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("the state in Secret eggo-state-%s: %v", cluster, err)
	}
	known, err := os.ReadFile(tb.Hosts[0].KnownHostsFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		pinned := st.HostKeys[h]
		if pinned == "" {
			t.Errorf("no host key pinned for %s in the state (pinned: %v)", h, st.HostKeys)
			continue
		}
		if !strings.Contains(string(known), h+",") || !strings.Contains(string(known), pinned) {
			t.Errorf("%s's pinned key %q is not the testbed host's", h, pinned)
		}
	}
}

// swapHostKey gives a host a new ed25519 host key, and its own back after
// d (a transient timer on the host: once the key changed, this machine's
// SSH client refuses the host too). The returned func waits for it.
func swapHostKey(t *testing.T, tb *nspawntest.Testbed, host string, d time.Duration) func() {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := tb.Exec(ctx, host, fmt.Sprintf(`set -e
k=/etc/ssh/ssh_host_ed25519_key
mkdir -p /root/hostkey && cp -a $k $k.pub /root/hostkey/
rm -f $k $k.pub && ssh-keygen -q -t ed25519 -N '' -f $k
systemd-run --quiet --on-active=%d /bin/sh -c 'cp -a /root/hostkey/* /etc/ssh/ && rm -rf /root/hostkey && systemctl restart ssh'
systemctl restart ssh`, int(d.Seconds())))
	if err != nil {
		t.Fatalf("%s: new host key: %v\n%s", host, err, out)
	}
	back := time.Now().Add(d)
	return func() {
		t.Helper()
		time.Sleep(time.Until(back))
		waitFor(t, host+"'s own host key back", 2*time.Minute, func() (bool, string) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			out, err := tb.Exec(ctx, host, "test ! -e /root/hostkey && echo back")
			return err == nil && strings.Contains(out, "back"), fmt.Sprint(err)
		}, func() string { return "" })
	}
}

// checkNoSecrets scans what is not a Secret: no SSH private key, no admin
// client key or token of the workload cluster, nothing PEM-private.
func checkNoSecrets(t *testing.T, mg kube, sshKeyFile, workKubeconfig string) {
	t.Helper()
	key, err := os.ReadFile(sshKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := os.ReadFile(workKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	needles := map[string]string{"PRIVATE KEY": "a PEM private key"}
	for _, l := range strings.Split(string(key), "\n") {
		if len(l) > 40 && !strings.HasPrefix(l, "-----") {
			needles[l] = "a line of the SSH private key"
		}
	}
	for _, l := range strings.Split(string(kc), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && (k == "client-key-data" || k == "token") {
			v = strings.TrimSpace(v)
			needles[v[:40]] = "the workload's admin " + k
			if raw, err := base64.StdEncoding.DecodeString(v); err == nil {
				for _, rl := range strings.Split(string(raw), "\n") {
					if len(rl) > 40 {
						needles[rl] = "a line of the workload's admin client key"
					}
				}
			}
		}
	}
	var haystack strings.Builder
	for _, args := range [][]string{
		{"get", "eggoclusters,configmaps,jobs,pods,events", "-A", "-o", "json"},
		{"-n", "eggo-system", "logs", "deployment/eggo-controller", "--tail=-1"},
	} {
		haystack.WriteString(mg.run(args...))
	}
	pods := strings.Fields(mg.run("-n", ns, "get", "pods", "-l", v1alpha1.LabelCluster+"="+cluster, "-o", "name"))
	sort.Strings(pods)
	var unread []string
	for _, p := range pods {
		// Asked again: once in a cold CI run (the machine at 0 % idle), no
		// pod's log came back and the scan stopped here with nothing to say.
		var log string
		var err error
		for i := 1; ; i++ {
			if log, err = mg.try("-n", ns, "logs", p, "--tail=-1"); err == nil || i == 3 {
				break
			}
			time.Sleep(time.Duration(i) * 2 * time.Second)
		}
		if err != nil {
			unread = append(unread, fmt.Sprintf("%s: %v: %s", p, err, strings.TrimSpace(log)))
		}
		haystack.WriteString(log)
	}
	if len(pods) == 0 || !strings.Contains(haystack.String(), "Apply complete") {
		phases, _ := mg.try("-n", ns, "get", "pods", "-l", v1alpha1.LabelCluster+"="+cluster, "-o", "wide")
		t.Fatalf("the scan saw no apply Job's log (%d pods; logs not read: %v)\n%s", len(pods), unread, phases)
	}
	text := haystack.String()
	for needle, what := range needles {
		if strings.Contains(text, needle) {
			t.Errorf("%s is in a CR, ConfigMap, Job, pod, event or log", what)
		}
	}
	t.Logf("secret scan: %d needles over %d bytes of CRs, ConfigMaps, Jobs, pods, events and logs (%d Job pods)", len(needles), len(text), len(pods))
}

// newLaps logs each step with the time since the last one.
func newLaps(t *testing.T) func(format string, args ...any) {
	last := time.Now()
	return func(format string, args ...any) {
		t.Helper()
		t.Logf("[%s] %s", time.Since(last).Round(time.Second), fmt.Sprintf(format, args...))
		last = time.Now()
	}
}
