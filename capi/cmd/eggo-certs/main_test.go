package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/eggo-project/eggo/capi/controllers/certs"
	"github.com/eggo-project/eggo/capi/internal/manager"
	"github.com/eggo-project/eggo/capi/internal/testenv"
)

// eggo-certs' manager, run as a user bound to its generated role
// (config/certmanager/role.yaml) with leader election on (as deployed),
// takes its lease and reconciles: a selfSigned Issuer becomes Ready.
func TestRunTakesTheLeaseAndReconciles(t *testing.T) {
	e := testenv.Start(t)
	ctx := testenv.Ctx(t, 2*time.Minute)
	for _, crd := range testenv.ReadCRDs(t, filepath.Join(e.ModuleDir, "config", "certmanager", "crds")) {
		if err := e.Client.Create(ctx, crd); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, time.Minute, crd.Name+" established", func() (bool, string) {
			got := &apiextv1.CustomResourceDefinition{}
			err := e.Client.Get(ctx, client.ObjectKey{Name: crd.Name}, got)
			for _, c := range got.Status.Conditions {
				if c.Type == apiextv1.Established && c.Status == apiextv1.ConditionTrue {
					return true, ""
				}
			}
			return false, fmt.Sprint(err, got.Status.Conditions)
		})
	}
	ns := e.API.Namespace(t, "cert-manager")
	data, err := os.ReadFile(filepath.Join(e.ModuleDir, "config", "certmanager", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "eggo-certs"}}}
	for _, o := range []client.Object{role, binding} {
		if err := e.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", e.API.UserKubeconfig(t, "eggo-certs"))
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(runCtx, cfg, options{Options: manager.Options{MetricsAddr: "0", ProbeAddr: "127.0.0.1:0", LeaderElect: true,
			LeaseNamespace: ns}, clusterResourceNamespace: ns})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	testenv.Eventually(t, time.Minute, "the lease "+LeaseName, func() (bool, string) {
		l := &coordinationv1.Lease{}
		err := e.Client.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKey{Namespace: ns, Name: LeaseName}, l)
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "", fmt.Sprint(err)
	})
	c, err := client.New(e.API.Config, client.Options{Scheme: e.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	iss := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Issuer",
		"metadata": map[string]any{"namespace": ns, "name": "self"}, "spec": map[string]any{"selfSigned": map[string]any{}}}}
	if err := c.Create(testenv.Ctx(t, 10*time.Second), iss); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "the Issuer Ready", func() (bool, string) {
		err := c.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKeyFromObject(iss), iss)
		return err == nil && certs.IsReady(iss), fmt.Sprint(err, iss.Object["status"])
	})
}
