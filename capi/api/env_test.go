// Tests of the provider API against a real kube-apiserver (and etcd) from
// the offline bundle (internal/harness/apitest of the root module, started
// by internal/testenv), with
// Cluster API's own CRDs of the pinned module and eggo's generated CRDs
// installed: what the server stores, defaults, validates and refuses is
// the CRDs' doing, not the Go types'.
package api_test

import (
	"context"
	"testing"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/eggo-project/eggo/internal/harness/apitest"

	"github.com/eggo-project/eggo/capi/internal/testenv"

	bootstrapv1 "github.com/eggo-project/eggo/capi/api/bootstrap/v1alpha1"
	controlplanev1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
)

// eggoCRDDir holds the committed (generated, labelled) CRDs.
const eggoCRDDir = "../config/crd/bases"

// eggoGroups are the providers' API groups.
var eggoGroups = []string{infrav1.GroupVersion.Group, bootstrapv1.GroupVersion.Group, controlplanev1.GroupVersion.Group}

// env is one kube-apiserver with Cluster API's and eggo's CRDs, shared by
// the subtests (each in its own namespace); internal/testenv starts it.
type env struct {
	api      *apitest.Server
	c        client.Client
	scheme   *runtime.Scheme
	eggoCRDs []*apiextv1.CustomResourceDefinition // as read from eggoCRDDir
}

func startEnv(t *testing.T) *env {
	t.Helper()
	te := testenv.Start(t)
	return &env{api: te.API, c: te.Client, scheme: te.Scheme, eggoCRDs: te.EggoCRDs}
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
	t.Run("ControlPlaneAddonsAndRuntime", e.testControlPlaneAddonsAndRuntime)
	t.Run("ControlPlaneAddonsAndRuntimeRefused", e.testControlPlaneAddonsAndRuntimeRefused)
}
