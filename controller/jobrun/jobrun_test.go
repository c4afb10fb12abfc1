package jobrun_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"filippo.io/age"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
	"github.com/eggo-project/eggo/controller/jobrun"
	"github.com/eggo-project/eggo/internal/harness/apitest"
	"github.com/eggo-project/eggo/internal/harness/eggotest"
)

const bundle = "/var/cache/eggo/bundle/v1.36.5"

// A one-node cluster: planning it reaches no host (nothing is in the
// state yet), so the real eggo plans it here, its state in the test's
// kube-apiserver.
const clusterHCL = `
backend "kubernetes" {
  kubeconfig = "KUBECONFIG" # its namespace: the Job's state namespace, which the Job gives eggo
}
variable "address" { type = string }
variable "packages" { type = string }
cluster "single" {
  kubernetes_version = "1.31.4"
  packages           = var.packages
  network {
    service_cidr = "10.32.0.0/16"
    pod_cidr     = "10.244.0.0/16"
  }
}
connection {
  user             = "root"
  private_key_file = "KEYFILE" # the Job's is MountSSH/ssh-privatekey; plan checks it exists
}
node "m0" {
  address = var.address
  roles   = ["master", "etcd", "worker"]
}
`

// TestPlanJobPublishesThePlan runs `job plan` with the real eggo CLI
// against a real kube-apiserver and reads back what it published.
func TestPlanJobPublishesThePlan(t *testing.T) {
	api, ns, kubeconfig, dir := planJobEnv(t)
	eggo := eggotest.Binary(t)
	config := filepath.Join(dir, "config")
	must(t, os.MkdirAll(config, 0o755))
	key := filepath.Join(dir, "ssh-privatekey") // never read: the plan contacts no host of 192.0.2.0/24
	must(t, os.WriteFile(key, []byte("not a key\n"), 0o600))
	hcl := strings.NewReplacer("KUBECONFIG", kubeconfig, "KEYFILE", key).Replace(clusterHCL)
	must(t, os.WriteFile(filepath.Join(config, v1alpha1.ConfigFile), []byte(hcl), 0o644))
	o := jobrun.Options{
		Phase: "plan", Namespace: ns, StateNamespace: stateNS, Cluster: "demo", Job: "demo-plan-g1", Bundle: bundle,
		Vars: []string{"address=192.0.2.10", "packages=./packages"}, Eggo: eggo,
		WorkDir: filepath.Join(dir, "run"), ConfigDir: config, Kubeconfig: kubeconfig,
	}
	var errOut strings.Builder
	if err := jobrun.Run(o, io.Discard, &errOut); err != nil {
		t.Fatalf("job plan: %v\n%s", err, errOut.String())
	}

	ctx := context.Background()
	cms, err := api.Client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: v1alpha1.LabelJob + "=demo-plan-g1," + v1alpha1.LabelContent + "=plan"})
	must(t, err)
	if len(cms.Items) != 1 {
		t.Fatalf("%d plan ConfigMaps", len(cms.Items))
	}
	cm := cms.Items[0]
	hash := cm.Data[v1alpha1.PlanKeyHash]
	if cm.Name != v1alpha1.PlanObjectName("demo", hash) {
		t.Fatalf("ConfigMap %s for plan %s", cm.Name, hash)
	}
	sec, err := api.Client.CoreV1().Secrets(stateNS).Get(ctx, cm.Name, metav1.GetOptions{})
	must(t, err)
	sum := sha256.Sum256(sec.Data[v1alpha1.PlanKeyFile])
	if hex.EncodeToString(sum[:]) != hash || string(sec.Data[v1alpha1.PlanKeyConfig]) != hcl {
		t.Fatalf("the Secret's saved plan is not plan %s, or its configuration differs", hash)
	}
	var s v1alpha1.PlanSummary
	must(t, json.Unmarshal([]byte(cm.Data[v1alpha1.PlanKeySummary]), &s))
	var m0 []string
	for _, n := range s.Nodes {
		if n.Name == "m0" {
			m0 = n.Operations
		}
	}
	if s.Add == 0 || !strings.Contains(strings.Join(m0, ","), "create host.m0") {
		t.Fatalf("summary %+v", s)
	}
	if !strings.Contains(cm.Data[v1alpha1.PlanKeyText], "m0") || strings.Contains(cm.Data[v1alpha1.PlanKeyText], "\x1b[") {
		t.Fatalf("plan text (colours or no node):\n%s", cm.Data[v1alpha1.PlanKeyText])
	}
	if strings.Contains(cm.Data[v1alpha1.PlanKeyText]+cm.Data[v1alpha1.PlanKeySummary], "PRIVATE KEY") {
		t.Fatal("a private key in the published plan")
	}
	if string(sec.Data[v1alpha1.PlanKeyVars]) != "address=192.0.2.10\npackages=./packages" {
		t.Fatalf("the plan's variables %q", sec.Data[v1alpha1.PlanKeyVars])
	}
	nodes, err := api.Client.CoreV1().ConfigMaps(ns).Get(ctx, v1alpha1.NodesConfigMapName("demo"), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("%v; the job's log:\n%s", err, errOut.String())
	}
	if nodes.Labels[v1alpha1.LabelJob] != "demo-plan-g1" || nodes.Data[v1alpha1.NodesKey] != "[]" {
		t.Fatalf("(job log: %s) nodes ConfigMap %v %v: want the empty state's nodes, from this Job", errOut.String(), nodes.Labels, nodes.Data)
	}
	applyRefusesAnotherPlan(t, api, o, sec, hash)
	jobsReachNoSecretOf(t, kubeconfig, ns)
}

// jobsReachNoSecretOf: the Jobs' roles let them read, write or delete no
// Secret of the EggoCluster's namespace, nor take a Lease there.
func jobsReachNoSecretOf(t *testing.T, kubeconfig, ns string) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	must(t, err)
	cs, err := kubernetes.NewForConfig(cfg)
	must(t, err)
	ctx := context.Background()
	for what, err := range map[string]error{
		"list Secrets": func() error { _, err := cs.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{}); return err }(),
		"get a Secret": func() error { _, err := cs.CoreV1().Secrets(ns).Get(ctx, "any", metav1.GetOptions{}); return err }(),
		"create a Secret": func() error {
			_, err := cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
			return err
		}(),
		"delete a Secret": cs.CoreV1().Secrets(ns).Delete(ctx, "any", metav1.DeleteOptions{}),
		"list Leases":     func() error { _, err := cs.CoordinationV1().Leases(ns).List(ctx, metav1.ListOptions{}); return err }(),
	} {
		if !apierrors.IsForbidden(err) {
			t.Errorf("the Jobs' role may %s in the EggoCluster's namespace %s: %v", what, ns, err)
		}
	}
}

// planJobEnv is what a test of `job plan` starts from: the bundle there,
// a kube-apiserver, the namespace "jobs" and a user of the Jobs' role in
// it (its kubeconfig), and a directory of the test's own.
func planJobEnv(t *testing.T) (api *apitest.Server, ns, kubeconfig, dir string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds eggo and starts a kube-apiserver")
	}
	if _, err := os.Stat(bundle); err != nil {
		t.Fatalf("no bundle at %s: run make bundle", bundle)
	}
	api = apitest.Start(t)
	ns = api.Namespace(t, "jobs")
	return api, ns, jobUser(t, api, ns), t.TempDir()
}

// stateNS is the tests' state namespace of namespace "jobs", as the
// policy's stateNamespace.jobs would name it.
const stateNS = "jobs-state"

// jobUser is a user with the Jobs' roles, as the Jobs' ServiceAccount of
// namespace ns would be: config/rbac/job_role.yaml in ns and
// job_state_role.yaml in the namespace stateNS, which it creates, and
// nothing else.
func jobUser(t *testing.T, api *apitest.Server, ns string) string {
	api.Namespace(t, stateNS)
	ctx := context.Background()
	for file, in := range map[string]string{"job_role.yaml": ns, "job_state_role.yaml": stateNS} {
		data, err := os.ReadFile("../config/rbac/" + file)
		must(t, err)
		var role rbacv1.ClusterRole
		must(t, yaml.Unmarshal(data, &role))
		_, err = api.Client.RbacV1().ClusterRoles().Create(ctx, &role, metav1.CreateOptions{})
		must(t, err)
		_, err = api.Client.RbacV1().RoleBindings(in).Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: role.Name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "eggo-job"}},
		}, metav1.CreateOptions{})
		must(t, err)
	}
	return api.UserKubeconfig(t, "eggo-job")
}

// applyRefusesAnotherPlan: `job apply` applies only the plan whose hash
// it was given.
func applyRefusesAnotherPlan(t *testing.T, api *apitest.Server, o jobrun.Options, secret *corev1.Secret, hash string) {
	changed := secret.DeepCopy()
	changed.Data[v1alpha1.PlanKeyFile] = append(changed.Data[v1alpha1.PlanKeyFile], ' ')
	_, err := api.Client.CoreV1().Secrets(stateNS).Update(context.Background(), changed, metav1.UpdateOptions{})
	must(t, err)
	o.Phase, o.PlanHash, o.Vars = "apply", hash, nil
	err = jobrun.Run(o, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not the approved") {
		t.Fatalf("apply of a changed plan file: %v", err)
	}
}

// TestJobRefusesAStateInThePod: a configuration without backend
// "kubernetes" would leave its state in the pod.
func TestJobRefusesAStateInThePod(t *testing.T) {
	dir := t.TempDir()
	for hcl, want := range map[string]string{
		`cluster "c" {}`:    `backend "kubernetes"`,
		`backend "etcd" {}`: `backend "kubernetes"`,
		"backend \"kubernetes\" {\n  namespace = \"other\"\n}": `cluster.hcl:2: the backend's namespace must be left out, or be "n-state"`,
	} {
		must(t, os.WriteFile(filepath.Join(dir, v1alpha1.ConfigFile), []byte(hcl), 0o644))
		o := jobrun.Options{Phase: "plan", Namespace: "n", StateNamespace: "n-state", Cluster: "c", Job: "j", Eggo: "/nonexistent",
			WorkDir: filepath.Join(dir, "run"), ConfigDir: dir}
		err := jobrun.Run(o, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", hcl, err)
		}
	}
}

func TestParse(t *testing.T) {
	o, err := jobrun.Parse([]string{"plan", "-namespace=n", "-cluster=c", "-job=j", "-confine-files", "-var=a=1", "-var=b=2"})
	if err != nil || o.Phase != "plan" || len(o.Vars) != 2 || o.Vars[1] != "b=2" || o.WorkDir != v1alpha1.MountWork {
		t.Fatalf("Parse: %+v, %v", o, err)
	}
	if o, err := jobrun.Parse([]string{"release", "-namespace=n", "-state-namespace=n-state", "-cluster=c", "-job=j", "-confine-files"}); err != nil ||
		o.Phase != "release" || o.StateNamespace != "n-state" {
		t.Fatalf("Parse of a release Job: %+v, %v", o, err)
	}
	for _, bad := range [][]string{nil, {"run"}, {"plan"}, {"apply", "-namespace=n", "-cluster=c", "-job=j", "-confine-files"},
		{"plan", "-namespace=n", "-cluster=c", "-job=j"}} {
		if _, err := jobrun.Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// TestJobConfinesEggo: every eggo a Job runs (here destroy, and the show
// that publishes the nodes) gets EGGO_CONFINE_FILES=1, whatever the
// Job's own environment says.
func TestJobConfinesEggo(t *testing.T) {
	t.Setenv("EGGO_CONFINE_FILES", "0")
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, v1alpha1.ConfigFile), []byte(`backend "kubernetes" {}`), 0o644))
	got := filepath.Join(dir, "got")
	eggo := filepath.Join(dir, "eggo")
	must(t, os.WriteFile(eggo, []byte(fmt.Sprintf("#!/bin/sh\necho \"$2 $EGGO_CONFINE_FILES\" >> %q\n", got)), 0o755))
	o := jobrun.Options{Phase: "destroy", Namespace: "n", Cluster: "c", Job: "j", Eggo: eggo,
		WorkDir: filepath.Join(dir, "run"), ConfigDir: dir, Kubeconfig: filepath.Join(dir, "none")}
	_ = jobrun.Run(o, io.Discard, io.Discard)
	b, err := os.ReadFile(got)
	must(t, err)
	runs := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, r := range runs {
		if !strings.HasSuffix(r, " 1") {
			t.Errorf("eggo %s ran unconfined", r)
		}
	}
	if !strings.HasPrefix(runs[0], "destroy ") {
		t.Errorf("runs %q: want destroy first", runs)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestJobPassesSIGTERMToEggo: a Job's pod is stopped with SIGTERM (deleted,
// past its deadline) and killed after its grace period; eggo must get the
// SIGTERM so it starts nothing new and records what finishes.
func TestJobPassesSIGTERMToEggo(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, v1alpha1.ConfigFile), []byte(`backend "kubernetes" {}`), 0o644))
	started, got := filepath.Join(dir, "started"), filepath.Join(dir, "got")
	eggo := filepath.Join(dir, "eggo")
	must(t, os.WriteFile(eggo, []byte(fmt.Sprintf(`#!/bin/sh
[ "$2" = destroy ] || exit 0
trap 'echo TERM > %[2]q; exit 3' TERM
touch %[1]q
i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
`, started, got)), 0o755))
	o := jobrun.Options{Phase: "destroy", Namespace: "n", Cluster: "c", Job: "j", Eggo: eggo,
		WorkDir: filepath.Join(dir, "run"), ConfigDir: dir, Kubeconfig: filepath.Join(dir, "none")}
	errc := make(chan error, 1)
	go func() { errc <- jobrun.Run(o, io.Discard, io.Discard) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stand-in eggo never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	must(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	select {
	case err := <-errc:
		if err == nil {
			t.Error("a destroy stopped by SIGTERM succeeded")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("eggo did not stop on SIGTERM: it never got it")
	}
	if b, err := os.ReadFile(got); err != nil || strings.TrimSpace(string(b)) != "TERM" {
		t.Fatalf("eggo got no SIGTERM: %v %q", err, b)
	}
}

// sealedHCL seals the cluster's state to RECIPIENT and has a sensitive
// output holding a private key: a plan holds it in clear (as it holds the
// state's keys once there is a state), and the published plan must not.
const sealedHCL = `
secrets {
  recipients = ["RECIPIENT"]
}
output "admin_key" {
  value     = "-----BEGIN EC PRIVATE KEY-----\n` + sealedMarker + `\n-----END EC PRIVATE KEY-----\n"
  sensitive = true
}
`

const sealedMarker = "MHcCAQEEIJobSealedPlanMarker4242"

// TestPlanJobOfASealedState: the plan of a sealed state is published
// sealed (no private key in the Secret); the same plan made again has the
// same hash, and its objects are relabelled with the new Job; a new plan
// deletes the plan it supersedes, leaving one plan's objects.
func TestPlanJobOfASealedState(t *testing.T) {
	api, ns, kubeconfig, dir := planJobEnv(t)
	id, err := age.GenerateX25519Identity()
	must(t, err)
	idFile := filepath.Join(dir, "identity")
	must(t, os.WriteFile(idFile, []byte(id.String()+"\n"), 0o600))
	config := filepath.Join(dir, "config")
	must(t, os.MkdirAll(config, 0o755))
	key := filepath.Join(dir, "ssh-privatekey")
	must(t, os.WriteFile(key, []byte("not a key\n"), 0o600))
	hcl := strings.NewReplacer("KUBECONFIG", kubeconfig, "KEYFILE", key, "RECIPIENT", id.Recipient().String()).Replace(clusterHCL + sealedHCL)
	must(t, os.WriteFile(filepath.Join(config, v1alpha1.ConfigFile), []byte(hcl), 0o644))
	ctx := context.Background()
	cms, secs := api.Client.CoreV1().ConfigMaps(ns), api.Client.CoreV1().Secrets(stateNS)
	plan := func(job, address string) string {
		t.Helper()
		o := jobrun.Options{
			Phase: "plan", Namespace: ns, StateNamespace: stateNS, Cluster: "demo", ClusterUID: demoUID, Job: job, Bundle: bundle,
			Identity: idFile, Vars: []string{"address=" + address, "packages=./packages"}, Eggo: eggotest.Binary(t),
			WorkDir: filepath.Join(dir, job), ConfigDir: config, Kubeconfig: kubeconfig,
		}
		var log strings.Builder
		if err := jobrun.Run(o, io.Discard, &log); err != nil {
			t.Fatalf("job plan %s: %v\n%s", job, err, log.String())
		}
		l, err := cms.List(ctx, metav1.ListOptions{LabelSelector: v1alpha1.LabelJob + "=" + job + "," + v1alpha1.LabelContent + "=plan"})
		must(t, err)
		if len(l.Items) != 1 {
			t.Fatalf("job %s: %d plan ConfigMaps", job, len(l.Items))
		}
		return l.Items[0].Data[v1alpha1.PlanKeyHash]
	}

	h1 := plan("demo-plan-g1", "192.0.2.10")
	sec, err := secs.Get(ctx, v1alpha1.PlanObjectName("demo", h1), metav1.GetOptions{})
	must(t, err)
	saved := string(sec.Data[v1alpha1.PlanKeyFile])
	if strings.Contains(saved, "PRIVATE KEY") || strings.Contains(saved, sealedMarker) || !strings.Contains(saved, `"sealed_plan"`) {
		t.Fatalf("the published plan of a sealed state holds a private key in clear, or is not sealed:\n%.400s", saved)
	}
	cm, err := cms.Get(ctx, v1alpha1.PlanObjectName("demo", h1), metav1.GetOptions{})
	must(t, err)
	if strings.Contains(cm.Data[v1alpha1.PlanKeyText]+cm.Data[v1alpha1.PlanKeySummary], sealedMarker) {
		t.Fatal("the plan's text holds the key")
	}

	if again := plan("demo-plan-g1-again", "192.0.2.10"); again != h1 {
		t.Fatalf("the same plan made again is plan %s, not %s", again[:12], h1[:12])
	}
	h2 := plan("demo-plan-g2", "192.0.2.11")
	if h2 == h1 {
		t.Fatal("another address, the same plan")
	}
	sel := metav1.ListOptions{LabelSelector: v1alpha1.LabelCluster + "=demo," + v1alpha1.LabelContent + "=plan"}
	cl, err := cms.List(ctx, sel)
	must(t, err)
	sl, err := secs.List(ctx, sel)
	must(t, err)
	want := v1alpha1.PlanObjectName("demo", h2)
	if len(cl.Items) != 1 || cl.Items[0].Name != want || len(sl.Items) != 1 || sl.Items[0].Name != want {
		t.Fatalf("plan objects after plan g2: %d ConfigMaps, %d Secrets; want %s's alone", len(cl.Items), len(sl.Items), want)
	}
}
