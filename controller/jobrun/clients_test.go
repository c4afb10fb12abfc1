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
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
	"github.com/eggo-project/eggo/controller/jobrun"
)

// fakeEggoFiles is fakeEggo with the kubeconfigs given: address → (file
// beside the state, content). apply writes every file, show -json
// records each with its sha256 and the CA.
func fakeEggoFiles(t *testing.T, dir string, files map[string][2]string) string {
	t.Helper()
	res := []map[string]any{{"address": "host.m0", "node": "m0", "kind": "host", "attributes": map[string]any{}}}
	var copies strings.Builder
	for addr, f := range files {
		sum := sha256.Sum256([]byte(f[1]))
		res = append(res, map[string]any{"address": addr, "kind": "kubeconfig", "attributes": map[string]any{
			"cluster": "single", "path": f[0], "sha256": hex.EncodeToString(sum[:]), "ca": testCACert}})
		src := filepath.Join(dir, "src-"+f[0])
		must(t, os.WriteFile(src, []byte(f[1]), 0o600))
		fmt.Fprintf(&copies, "cp %q \"$dir/%s\"; ", src, f[0])
	}
	js, err := json.Marshal(map[string]any{"format_version": 1, "resources": res})
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "show.json"), js, 0o644))
	script := fmt.Sprintf("#!/bin/sh\ndir=${1#-chdir=}; shift\ncase $1 in\napply) %s;;\nshow) cat %q ;;\n*) exit 2 ;;\nesac\n",
		copies.String(), filepath.Join(dir, "show.json"))
	eggo := filepath.Join(dir, "eggo")
	must(t, os.WriteFile(eggo, []byte(script), 0o755))
	return eggo
}

// TestClientKubeconfigsPublished: a client certificate's kubeconfig
// (certificates { client "capi" }) is published beside the admin's as
// <cluster>-kubeconfig-<client>, restored into a fresh run directory,
// unpublished when the configuration drops the client, and deleted with
// the cluster's other leftovers after a destroy.
func TestClientKubeconfigsPublished(t *testing.T) {
	api, ns, kubeconfig := jobsAPI(t)
	ctx := context.Background()
	secrets := api.Client.CoreV1().Secrets(stateNS)
	admin, capi := adminKubeconfig(), "apiVersion: v1\nkind: Config\n# the capi client's\n"
	withClient := fakeEggoFiles(t, t.TempDir(), map[string][2]string{
		"kubeconfig.admin":          {"single.kubeconfig", admin},
		`kubeconfig.client["capi"]`: {"single-capi.kubeconfig", capi},
	})
	o := applyOptions(t, api, ns, kubeconfig, withClient, "demo")
	var log strings.Builder
	if err := jobrun.Run(o, &log, &log); err != nil {
		t.Fatalf("job apply: %v\n%s", err, log.String())
	}
	s, err := secrets.Get(ctx, "demo-kubeconfig-capi", metav1.GetOptions{})
	must(t, err)
	if string(s.Data[v1alpha1.KubeconfigKey]) != capi || len(s.Data) != 1 ||
		s.Labels[v1alpha1.LabelClusterNamespace] != ns || s.Annotations[v1alpha1.AnnotationClusterUID] != o.ClusterUID {
		t.Fatalf("demo-kubeconfig-capi: %v %v %q", s.Labels, s.Annotations, s.Data)
	}
	if a, err := secrets.Get(ctx, "demo-kubeconfig", metav1.GetOptions{}); err != nil || string(a.Data["value"]) != admin {
		t.Fatalf("the admin kubeconfig beside it: %v", err)
	}

	// A fresh run directory gets both back.
	fresh := applyOptions(t, api, ns, kubeconfig, withClient, "demo")
	must(t, os.MkdirAll(fresh.WorkDir, 0o700))
	log.Reset()
	jobrun.RestoreAccess(fresh, &log, nil)
	for file, want := range map[string]string{"single.kubeconfig": admin, "single-capi.kubeconfig": capi} {
		if got, err := os.ReadFile(filepath.Join(fresh.WorkDir, file)); err != nil || string(got) != want {
			t.Errorf("%s restored: %v (log %q)", file, err, log.String())
		}
	}

	// The client dropped from the configuration: its Secret goes.
	adminOnly := fakeEggoFiles(t, t.TempDir(), map[string][2]string{"kubeconfig.admin": {"single.kubeconfig", admin}})
	must(t, jobrun.Run(applyOptions(t, api, ns, kubeconfig, adminOnly, "demo"), io.Discard, io.Discard))
	if _, err := secrets.Get(ctx, "demo-kubeconfig-capi", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a dropped client's kubeconfig is still published: %v", err)
	}

	// After a destroy, none is left.
	must(t, jobrun.Run(applyOptions(t, api, ns, kubeconfig, withClient, "demo"), io.Discard, io.Discard))
	log.Reset()
	if err := jobrun.DeleteLeftovers(o, &log); err != nil {
		t.Fatalf("DeleteLeftovers: %v\n%s", err, log.String())
	}
	for _, name := range []string{"demo-kubeconfig", "demo-kubeconfig-capi"} {
		if _, err := secrets.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s left after the destroy: %v", name, err)
		}
	}
}
