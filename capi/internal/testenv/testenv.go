// Package testenv starts, for a test, a real kube-apiserver (and etcd)
// from the offline bundle (internal/harness/apitest of the root module)
// with Cluster API's CRDs of the pinned module and eggo's generated CRDs
// installed, and makes controller-runtime clients for it: as the admin,
// or as a user bound to one of eggo-capi's generated ClusterRoles.
package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"go.uber.org/zap/zapcore"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	"github.com/eggo-project/eggo/internal/harness/apitest"

	bootstrapv1 "github.com/eggo-project/eggo/capi/api/bootstrap/v1alpha1"
	controlplanev1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
)

// Env is one kube-apiserver with Cluster API's and eggo's CRDs.
type Env struct {
	API      *apitest.Server
	Client   client.Client // the admin's
	Scheme   *runtime.Scheme
	EggoCRDs []*apiextv1.CustomResourceDefinition // as read from config/crd/bases
	// ModuleDir is the capi module's directory (config/ is under it).
	ModuleDir string
}

// NewScheme holds client-go's kinds, the CRD kind, Cluster API's core
// v1beta2 and eggo's three groups.
func NewScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, apiextv1.AddToScheme, clusterv1.AddToScheme,
		infrav1.AddToScheme, bootstrapv1.AddToScheme, controlplanev1.AddToScheme,
	} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// Start starts the server and installs the CRDs; the admin client is made
// after they are served, so its REST mapper finds them.
func Start(t testing.TB) *Env {
	t.Helper()
	e := &Env{API: apitest.Start(t), Scheme: NewScheme(t), ModuleDir: ModuleDir(t)}
	boot, err := client.New(e.API.Config, client.Options{Scheme: e.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	capiCRDs := ReadCRDs(t, filepath.Join(CAPIModuleDir(t), "core", "config", "crd", "bases"))
	e.EggoCRDs = ReadCRDs(t, filepath.Join(e.ModuleDir, "config", "crd", "bases"))
	all := append(append([]*apiextv1.CustomResourceDefinition{}, capiCRDs...), e.EggoCRDs...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, crd := range all {
		if err := boot.Create(ctx, crd.DeepCopy()); err != nil {
			t.Fatalf("installing CRD %s: %v", crd.Name, err)
		}
	}
	for _, crd := range all {
		waitEstablished(ctx, t, boot, crd.Name)
	}
	if e.Client, err = client.New(e.API.Config, client.Options{Scheme: e.Scheme}); err != nil {
		t.Fatal(err)
	}
	t.Logf("installed %d Cluster API and %d eggo CRDs", len(capiCRDs), len(e.EggoCRDs))
	return e
}

// ModuleDir is the capi module's directory, as the go command finds it
// from the test's working directory (its package's).
func ModuleDir(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	mod := strings.TrimSpace(string(out))
	if err != nil || !strings.HasSuffix(mod, "go.mod") {
		t.Fatalf("go env GOMOD: %q %v", out, err)
	}
	return filepath.Dir(mod)
}

// CAPIModuleDir is where the go command keeps the pinned
// sigs.k8s.io/cluster-api module.
func CAPIModuleDir(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/cluster-api").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Fatalf("go list -m sigs.k8s.io/cluster-api: %q %v", out, err)
	}
	return dir
}

// ReadCRDs reads every *.yaml of dir as a CRD, strictly.
func ReadCRDs(t testing.TB, dir string) []*apiextv1.CustomResourceDefinition {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s: %v", dir, err)
	}
	var crds []*apiextv1.CustomResourceDefinition
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		crds = append(crds, crd)
	}
	return crds
}

func waitEstablished(ctx context.Context, t testing.TB, c client.Client, name string) {
	t.Helper()
	var last string
	for {
		crd := &apiextv1.CustomResourceDefinition{}
		err := c.Get(ctx, client.ObjectKey{Name: name}, crd)
		if err == nil && crdCondition(crd, apiextv1.Established) && crdCondition(crd, apiextv1.NamesAccepted) {
			return
		}
		last = fmt.Sprintf("%v %v", err, crd.Status.Conditions)
		select {
		case <-ctx.Done():
			t.Fatalf("CRD %s not established: %s", name, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func crdCondition(crd *apiextv1.CustomResourceDefinition, typ apiextv1.CustomResourceDefinitionConditionType) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == typ && c.Status == apiextv1.ConditionTrue {
			return true
		}
	}
	return false
}

// RoleConfig installs the generated ClusterRole of provider
// (config/rbac/<provider>/role.yaml, under its own name suffixed with
// user so tests may bind it several times), binds user to it, and returns
// a rest.Config that reaches the server as that user: RBAC applies to
// what a controller run with it does, as to eggo-capi's ServiceAccount.
func (e *Env) RoleConfig(t testing.TB, provider, user string) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", e.RoleKubeconfig(t, provider, user))
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	return cfg
}

// RoleKubeconfig is RoleConfig as a kubeconfig file.
func (e *Env) RoleKubeconfig(t testing.TB, provider, user string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	path := filepath.Join(e.ModuleDir, "config", "rbac", provider, "role.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the generated role of %s: %v", provider, err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	role.Name += "-" + user
	if err := e.Client.Create(ctx, role); err != nil {
		t.Fatalf("creating %s: %v", role.Name, err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if err := e.Client.Create(ctx, binding); err != nil {
		t.Fatalf("binding %s: %v", role.Name, err)
	}
	return e.API.UserKubeconfig(t, user)
}

// Ctx is a context for one test step, cancelled when t ends.
func Ctx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// StartManager runs a controller-runtime manager in the test process
// against the server as cfg says, with setup's reconcilers, until t ends
// (then it waits for it to stop). Leader election is off, and the
// metrics and health endpoints too, so several managers may run at once
// and all reconcile.
func (e *Env) StartManager(t testing.TB, name string, cfg *rest.Config, setup func(manager.Manager) error) {
	t.Helper()
	logger, quiet := testLogger(t)
	mgr, err := manager.New(cfg, manager.Options{
		Scheme:                 e.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		Logger:                 logger.WithName(name),
	})
	if err != nil {
		t.Fatalf("manager %s: %v", name, err)
	}
	if err := setup(mgr); err != nil {
		t.Fatalf("manager %s: setting up its reconcilers: %v", name, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("manager %s: %v", name, err)
			}
		case <-time.After(time.Minute):
			t.Errorf("manager %s did not stop", name)
		}
		quiet.Store(true) // t must not be written to once it ended
	})
}

// ControllerOptions are the reconcilers' options in tests: several
// managers in one process register controllers of the same names, and
// each runs a few reconciles at once to make races likely.
func ControllerOptions() controller.Options {
	return controller.Options{SkipNameValidation: ptr.To(true), MaxConcurrentReconciles: 4}
}

// testLogger logs through t (shown with -v or when the test fails), at
// the reconcilers' V(1) detail.
func testLogger(t testing.TB) (logr.Logger, *atomic.Bool) {
	w := testWriter{t: t, quiet: &atomic.Bool{}}
	return zap.New(zap.WriteTo(w), zap.UseDevMode(true), zap.Level(zapcore.Level(-1))), w.quiet
}

type testWriter struct {
	t     testing.TB
	quiet *atomic.Bool
}

func (w testWriter) Write(p []byte) (int, error) {
	if !w.quiet.Load() {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

// Eventually polls cond every 100ms until it holds, failing t with its
// last word after timeout.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s: %s", what, timeout, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Consistently checks cond every 100ms for d, failing t the first time
// it does not hold.
func Consistently(t testing.TB, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if ok, last := cond(); !ok {
			t.Fatalf("%s: %s", what, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
