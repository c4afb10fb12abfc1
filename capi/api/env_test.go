// Tests of the provider API against a real kube-apiserver (and etcd) from
// the offline bundle (internal/harness/apitest of the root module), with
// Cluster API's own CRDs of the pinned module and eggo's generated CRDs
// installed: what the server stores, defaults, validates and refuses is
// the CRDs' doing, not the Go types'.
package api_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/eggo-project/eggo/internal/harness/apitest"

	bootstrapv1 "github.com/eggo-project/eggo/capi/api/bootstrap/v1alpha1"
	controlplanev1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
)

// eggoCRDDir holds the committed (generated, labelled) CRDs.
const eggoCRDDir = "../config/crd/bases"

// eggoGroups are the providers' API groups.
var eggoGroups = []string{infrav1.GroupVersion.Group, bootstrapv1.GroupVersion.Group, controlplanev1.GroupVersion.Group}

// env is one kube-apiserver with Cluster API's and eggo's CRDs, shared by
// the subtests (each in its own namespace).
type env struct {
	api      *apitest.Server
	c        client.Client
	scheme   *runtime.Scheme
	eggoCRDs []*apiextv1.CustomResourceDefinition // as read from eggoCRDDir
}

func newScheme(t *testing.T) *runtime.Scheme {
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

// startEnv starts the server and installs the CRDs; the client is made
// after they are served, so its REST mapper finds them.
func startEnv(t *testing.T) *env {
	t.Helper()
	e := &env{api: apitest.Start(t), scheme: newScheme(t)}
	boot, err := client.New(e.api.Config, client.Options{Scheme: e.scheme})
	if err != nil {
		t.Fatal(err)
	}
	capiCRDs := readCRDs(t, filepath.Join(capiModuleDir(t), "core", "config", "crd", "bases"))
	e.eggoCRDs = readCRDs(t, eggoCRDDir)
	all := append(append([]*apiextv1.CustomResourceDefinition{}, capiCRDs...), e.eggoCRDs...)
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
	if e.c, err = client.New(e.api.Config, client.Options{Scheme: e.scheme}); err != nil {
		t.Fatal(err)
	}
	t.Logf("installed %d Cluster API and %d eggo CRDs", len(capiCRDs), len(e.eggoCRDs))
	return e
}

// capiModuleDir is where the go command keeps the pinned
// sigs.k8s.io/cluster-api module.
func capiModuleDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/cluster-api").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Fatalf("go list -m sigs.k8s.io/cluster-api: %q %v", out, err)
	}
	return dir
}

func readCRDs(t *testing.T, dir string) []*apiextv1.CustomResourceDefinition {
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

func waitEstablished(ctx context.Context, t *testing.T, c client.Client, name string) {
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

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestAPI runs every check on one server: starting it and installing the
// CRDs is most of the time.
func TestAPI(t *testing.T) {
	e := startEnv(t)
	t.Run("CRDsFollowTheContract", e.testCRDsFollowTheContract)
	t.Run("EveryKindRoundTrips", e.testEveryKindRoundTrips)
	t.Run("CoreRefersToEggoKinds", e.testCoreRefersToEggoKinds)
	t.Run("SSHHostDefaultsAndHostKey", e.testSSHHostDefaultsAndHostKey)
	t.Run("SSHHostClaimCannotBeStolen", e.testSSHHostClaimCannotBeStolen)
	t.Run("SSHMachineProviderIDIsSetOnce", e.testSSHMachineProviderIDIsSetOnce)
	t.Run("SSHClusterEndpointSources", e.testSSHClusterEndpointSources)
	t.Run("ControlPlaneVersionIsRequired", e.testControlPlaneVersionIsRequired)
	t.Run("ControlPlaneKubeconfigDefaults", e.testControlPlaneKubeconfigDefaults)
	t.Run("ControlPlaneScaleSubresource", e.testControlPlaneScaleSubresource)
}
