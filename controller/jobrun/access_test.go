package jobrun_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
	"github.com/eggo-project/eggo/controller/jobrun"
	"github.com/eggo-project/eggo/internal/harness/apitest"
)

// adminKeyMarker stands in for the admin client key: it must reach the
// kubeconfig Secret and nothing else.
const adminKeyMarker = "ADMINKEYsecret0123456789"

const testCACert = "-----BEGIN CERTIFICATE-----\nTESTCACERT\n-----END CERTIFICATE-----\n"

// fakeEggo writes a stand-in for the eggo CLI: `apply` writes the admin
// kubeconfig beside the state as eggo does (<cluster>.kubeconfig in the
// run's directory) or fails when failFile exists; `show -json` prints a
// state whose kubeconfig.admin records that file, its sha256 and the CA.
func fakeEggo(t *testing.T, dir, kubeconfig, recordedSum, failFile string) string {
	t.Helper()
	state := map[string]any{"format_version": 1, "resources": []map[string]any{
		{"address": "host.m0", "node": "m0", "kind": "host", "attributes": map[string]any{}},
		{"address": "kubeconfig.admin", "kind": "kubeconfig", "attributes": map[string]any{
			"cluster": "single", "path": "single.kubeconfig", "sha256": recordedSum, "ca": testCACert,
			"user": "kubernetes-admin", "server": "https://192.0.2.10:6443"}},
	}}
	js, err := json.Marshal(state)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "show.json"), js, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "admin.kubeconfig"), []byte(kubeconfig), 0o600))
	script := fmt.Sprintf(`#!/bin/sh
dir=${1#-chdir=}; shift
case $1 in
apply) if [ -e %[1]q ]; then echo "Error: host m0 unreachable" >&2; exit 1; fi
       cp %[2]q "$dir/single.kubeconfig" ;;
show)  cat %[3]q ;;
*)     echo "fake eggo: $*" >&2; exit 2 ;;
esac
`, failFile, filepath.Join(dir, "admin.kubeconfig"), filepath.Join(dir, "show.json"))
	eggo := filepath.Join(dir, "eggo")
	must(t, os.WriteFile(eggo, []byte(script), 0o755))
	return eggo
}

func adminKubeconfig() string {
	key := base64.StdEncoding.EncodeToString([]byte("-----BEGIN EC PRIVATE KEY-----\n" + adminKeyMarker + "\n-----END EC PRIVATE KEY-----\n"))
	ca := base64.StdEncoding.EncodeToString([]byte(testCACert))
	return `apiVersion: v1
kind: Config
clusters:
- name: single
  cluster: {server: "https://192.0.2.10:6443", certificate-authority-data: ` + ca + `}
users:
- name: kubernetes-admin
  user: {client-certificate-data: Y2VydA==, client-key-data: ` + key + `}
contexts:
- name: single
  context: {cluster: single, user: kubernetes-admin}
current-context: single
`
}

// jobsAPI starts a real kube-apiserver with a namespace "jobs" and a
// kubeconfig of a user bound to exactly the Jobs' role there.
func jobsAPI(t *testing.T) (*apitest.Server, string, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a kube-apiserver")
	}
	api := apitest.Start(t)
	ns := api.Namespace(t, "jobs")
	return api, ns, jobUser(t, api, ns)
}

// applyOptions publishes a saved plan's Secret in the state namespace, as
// a plan Job would, for `job apply` of cluster.
func applyOptions(t *testing.T, api *apitest.Server, ns, kubeconfig, eggo, cluster string) jobrun.Options {
	t.Helper()
	saved := []byte("saved plan of " + cluster)
	sum := sha256.Sum256(saved)
	o := jobrun.Options{
		Phase: "apply", Namespace: ns, StateNamespace: stateNS, Cluster: cluster, ClusterUID: "0b6c1d3e-uid-" + cluster,
		Job: cluster + "-apply-1", Eggo: eggo, WorkDir: filepath.Join(t.TempDir(), "run"), PlanHash: hex.EncodeToString(sum[:]),
		Kubeconfig: kubeconfig,
	}
	_, err := api.Client.CoreV1().Secrets(stateNS).Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PlanObjectName(cluster, o.PlanHash),
			Labels:      map[string]string{v1alpha1.LabelCluster: cluster, v1alpha1.LabelClusterNamespace: ns, v1alpha1.LabelContent: "plan"},
			Annotations: map[string]string{v1alpha1.AnnotationClusterUID: o.ClusterUID}},
		Data: map[string][]byte{v1alpha1.PlanKeyFile: saved, v1alpha1.PlanKeyConfig: []byte(`backend "kubernetes" {}`)},
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return o
}

// TestApplyJobPublishesClusterAccess: after a successful apply the Job
// publishes the admin kubeconfig eggo wrote as <cluster>-kubeconfig (key
// value) and the CA certificate as <cluster>-ca (tls.crt only) in the
// state namespace, naming the EggoCluster, as a user bound to exactly the
// Jobs' roles; after a
// failed apply, or when the file is not the one the state records,
// nothing is published.
func TestApplyJobPublishesClusterAccess(t *testing.T) {
	api, ns, kubeconfig := jobsAPI(t)
	ctx := context.Background()
	secrets := api.Client.CoreV1().Secrets(stateNS)
	content := adminKubeconfig()
	sum := sha256.Sum256([]byte(content))
	dir := t.TempDir()
	fail := filepath.Join(dir, "fail")
	eggo := fakeEggo(t, dir, content, hex.EncodeToString(sum[:]), fail)

	// A failed apply publishes nothing (and fails the Job).
	must(t, os.WriteFile(fail, nil, 0o644))
	o := applyOptions(t, api, ns, kubeconfig, eggo, "broken")
	if err := jobrun.Run(o, io.Discard, io.Discard); err == nil {
		t.Fatal("a failed apply succeeded")
	}
	if _, err := secrets.Get(ctx, v1alpha1.KubeconfigSecretName("broken"), metav1.GetOptions{}); err == nil {
		t.Fatal("a failed apply published a kubeconfig")
	}
	must(t, os.Remove(fail))

	o = applyOptions(t, api, ns, kubeconfig, eggo, "demo")
	var log strings.Builder
	if err := jobrun.Run(o, &log, &log); err != nil {
		t.Fatalf("job apply: %v\n%s", err, log.String())
	}
	kc, err := secrets.Get(ctx, "demo-kubeconfig", metav1.GetOptions{})
	must(t, err)
	if string(kc.Data["value"]) != content || len(kc.Data) != 1 {
		t.Fatalf("demo-kubeconfig holds %d keys, value %q: want exactly eggo's admin kubeconfig", len(kc.Data), kc.Data["value"])
	}
	ca, err := secrets.Get(ctx, "demo-ca", metav1.GetOptions{})
	must(t, err)
	if len(ca.Data) != 1 || string(ca.Data["tls.crt"]) != testCACert {
		t.Fatalf("demo-ca holds %v: want tls.crt only, the state's CA certificate", ca.Data)
	}
	for _, s := range []metav1.ObjectMeta{kc.ObjectMeta, ca.ObjectMeta} {
		if s.Labels[v1alpha1.LabelClusterNamespace] != ns || s.Annotations[v1alpha1.AnnotationClusterUID] != o.ClusterUID {
			t.Errorf("%s names the EggoCluster %s/%s, want %s/%s", s.Name, s.Labels[v1alpha1.LabelClusterNamespace],
				s.Annotations[v1alpha1.AnnotationClusterUID], ns, o.ClusterUID)
		}
		if s.Labels[v1alpha1.LabelCluster] != "demo" || s.Labels[v1alpha1.LabelJob] != o.Job {
			t.Errorf("%s labels %v", s.Name, s.Labels)
		}
	}
	// The key is in that Secret only: not in a ConfigMap, nor the Job's log.
	cms, err := api.Client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	must(t, err)
	js, err := json.Marshal(cms)
	must(t, err)
	encoded := base64.StdEncoding.EncodeToString([]byte("-----BEGIN EC PRIVATE KEY-----\n" + adminKeyMarker))
	for where, text := range map[string]string{"ConfigMaps": string(js), "the Job's log": log.String()} {
		if strings.Contains(text, adminKeyMarker) || strings.Contains(text, encoded[:40]) || strings.Contains(text, "PRIVATE KEY") {
			t.Errorf("%s hold the admin key", where)
		}
	}
	if !strings.Contains(string(js), "demo-nodes") {
		t.Fatalf("no nodes ConfigMap: the scan saw nothing")
	}

	// A Secret of that name that is not the cluster's is left alone.
	_, err = secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "mine-kubeconfig"},
		Data: map[string][]byte{"value": []byte("the user's own")}}, metav1.CreateOptions{})
	must(t, err)
	mine := applyOptions(t, api, ns, kubeconfig, eggo, "mine")
	if err := jobrun.Run(mine, io.Discard, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "Secret "+stateNS+"/mine-kubeconfig exists and is not eggo's for EggoCluster mine (no label eggo.io/cluster=mine): not overwritten") {
		t.Fatalf("apply over a user's mine-kubeconfig: %v", err)
	}
	if got, _ := secrets.Get(ctx, "mine-kubeconfig", metav1.GetOptions{}); string(got.Data["value"]) != "the user's own" {
		t.Fatal("a user's Secret was overwritten")
	}

	// A kubeconfig that is not the one the state records is not published.
	tampered := applyOptions(t, api, ns, kubeconfig, fakeEggo(t, t.TempDir(), content, strings.Repeat("0", 64), fail), "tampered")
	if err := jobrun.Run(tampered, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "not the one the state records") {
		t.Fatalf("apply with a kubeconfig the state does not record: %v", err)
	}
	if _, err := secrets.Get(ctx, v1alpha1.KubeconfigSecretName("tampered"), metav1.GetOptions{}); err == nil {
		t.Fatal("a kubeconfig the state does not record was published")
	}
}

// TestRestoreAccess: a Job's directory starts empty; the admin kubeconfig
// the last apply published is put back where the state records it, so a
// plan of an applied cluster can be empty. A Secret whose content the
// state does not record, or that is not the EggoCluster's, is not
// restored.
func TestRestoreAccess(t *testing.T) {
	api, ns, kubeconfig := jobsAPI(t)
	ctx := context.Background()
	content := adminKubeconfig()
	sum := sha256.Sum256([]byte(content))
	dir := t.TempDir()
	eggo := fakeEggo(t, dir, content, hex.EncodeToString(sum[:]), filepath.Join(dir, "fail"))
	o := applyOptions(t, api, ns, kubeconfig, eggo, "demo")
	must(t, jobrun.Run(o, io.Discard, io.Discard)) // publishes demo-kubeconfig

	fresh := func(cluster string) (jobrun.Options, string) {
		o := applyOptions(t, api, ns, kubeconfig, eggo, cluster)
		must(t, os.MkdirAll(o.WorkDir, 0o700))
		return o, filepath.Join(o.WorkDir, "single.kubeconfig")
	}
	o, file := fresh("demo")
	var log strings.Builder
	jobrun.RestoreAccess(o, &log, nil)
	if got, err := os.ReadFile(file); err != nil || string(got) != content {
		t.Fatalf("restored kubeconfig: %v (log %q)", err, log.String())
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("restored kubeconfig mode %v, want 0600", fi.Mode().Perm())
	}
	if strings.Contains(log.String(), adminKeyMarker) {
		t.Error("the log holds the admin key")
	}

	// The Secret changed behind the state's back: not restored.
	s, err := api.Client.CoreV1().Secrets(stateNS).Get(ctx, "demo-kubeconfig", metav1.GetOptions{})
	must(t, err)
	s.Data["value"] = []byte(content + "# edited\n")
	_, err = api.Client.CoreV1().Secrets(stateNS).Update(ctx, s, metav1.UpdateOptions{})
	must(t, err)
	o, file = fresh("demo")
	log.Reset()
	jobrun.RestoreAccess(o, &log, nil)
	if _, err := os.Stat(file); err == nil || !strings.Contains(log.String(), "sha256 differs") {
		t.Fatalf("an edited Secret was restored (log %q)", log.String())
	}

	// A user's own Secret of the name is not the EggoCluster's: not restored.
	_, err = api.Client.CoreV1().Secrets(stateNS).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "mine-kubeconfig"},
		Data: map[string][]byte{"value": []byte(content)}}, metav1.CreateOptions{})
	must(t, err)
	o, file = fresh("mine")
	log.Reset()
	jobrun.RestoreAccess(o, &log, nil)
	if _, err := os.Stat(file); err == nil || !strings.Contains(log.String(), "is not eggo's for EggoCluster mine") {
		t.Fatalf("a user's Secret was restored (log %q)", log.String())
	}
}
