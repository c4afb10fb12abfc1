package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/internal/manager"
	"github.com/eggo-project/eggo/capi/internal/testenv"
)

// Each --provider registers its reconcilers with a manager (nothing is
// started, no server is needed), and an unknown
// one is refused.
func TestSetupProviders(t *testing.T) {
	scheme, err := newScheme()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{Infrastructure, Bootstrap, ControlPlane, "infra"} {
		mgr, err := ctrl.NewManager(&rest.Config{Host: "https://127.0.0.1:1"}, ctrl.Options{
			Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
		if err != nil {
			t.Fatal(err)
		}
		// Names unchecked: run registers the same in the next test.
		err = setup(p, mgr, controller.Options{SkipNameValidation: ptr.To(true)})
		if known := p != "infra"; known != (err == nil) {
			t.Errorf("--provider=%s: %v", p, err)
		}
	}
	if !strings.Contains(usage, "--provider=control-plane   the EggoControlPlane reconciler") {
		t.Errorf("the usage does not name the control plane's reconciler:\n%s", usage)
	}
}

// The infrastructure provider's manager, run as a user bound to its
// generated role with leader election on (as deployed), takes its own
// lease and reconciles: a new SSHHost becomes Available.
func TestRunTakesTheLeaseAndReconciles(t *testing.T) {
	e := testenv.Start(t)
	ns := e.API.Namespace(t, "eggo-capi-system")
	cfg, err := clientcmd.BuildConfigFromFlags("", e.RoleKubeconfig(t, Infrastructure, "eggo-capi-infrastructure"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, cfg, options{provider: Infrastructure, Options: manager.Options{MetricsAddr: "0", ProbeAddr: "127.0.0.1:0",
			LeaderElect: true, LeaseNamespace: ns}})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	testenv.Eventually(t, time.Minute, "the lease "+LeaseName(Infrastructure), func() (bool, string) {
		l := &coordinationv1.Lease{}
		err := e.Client.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKey{Namespace: ns, Name: LeaseName(Infrastructure)}, l)
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "", fmt.Sprint(err)
	})
	h := &infrav1.SSHHost{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "h1"}, Spec: infrav1.SSHHostSpec{
		Pool: "p", Address: "10.0.0.1", SSHKeySecretRef: infrav1.SecretReference{Name: "k"},
		HostKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ0t6ZyVh2x8q7mYk2Qn3m1L8d8oTtQ0M4pXk8o6d9Zr"}}
	if err := e.Client.Create(testenv.Ctx(t, 10*time.Second), h); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "SSHHost h1 Available", func() (bool, string) {
		cur := &infrav1.SSHHost{}
		err := e.Client.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKeyFromObject(h), cur)
		return err == nil && cur.Status.Phase == infrav1.SSHHostAvailable, fmt.Sprintf("%v %q", err, cur.Status.Phase)
	})
}
