package api_test

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
)

const (
	stealRule   = "claimRef.clusterUID cannot change while the host is claimed"
	machineRule = "claimRef.machineUID cannot change from one machine to another"
)

// The server fills the SSH defaults and refuses a host key that is not
// an OpenSSH public key, or none.
func (e *env) testSSHHostDefaultsAndHostKey(t *testing.T) {
	ctx := ctxFor(t)
	ns := e.api.Namespace(t, "host-defaults")
	h := sshHost(ns, "h1")
	if err := e.c.Create(ctx, h); err != nil {
		t.Fatal(err)
	}
	if h.Spec.Port != 22 || h.Spec.User != "root" || h.Spec.Arch != "amd64" || h.Spec.Sudo {
		t.Errorf("defaults: port %d user %q arch %q sudo %v, want 22 root amd64 false", h.Spec.Port, h.Spec.User, h.Spec.Arch, h.Spec.Sudo)
	}
	for name, key := range map[string]string{
		"none":        "",
		"no-type":     "AAAAC3NzaC1lZDI1NTE5AAAAIJ0t6ZyVh2x8q7mYk2Qn3m1L8d8oTtQ0M4pXk8o6d9Zr",
		"fingerprint": "SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s",
		"private":     "-----BEGIN OPENSSH PRIVATE KEY-----",
		"two-lines":   testHostKey + "\nssh-rsa AAAAB3NzaC1yc2E",
	} {
		bad := sshHost(ns, "bad-"+name)
		bad.Spec.HostKey = key
		if err := e.c.Create(ctx, bad); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.hostKey") {
			t.Errorf("host key %q (%s): %v, want invalid spec.hostKey", key, name, err)
		}
	}
	for _, key := range []string{
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ0t6ZyVh2x8q7mYk2Qn3m1L8d8oTtQ0M4pXk8o6d9Zr",
		"ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBEm= root@h",
		"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7== host key",
	} {
		good := sshHost(ns, "good-"+strings.SplitN(key, " ", 2)[0])
		good.Spec.HostKey = key
		if err := e.c.Create(ctx, good); err != nil {
			t.Errorf("host key %q refused: %v", key, err)
		}
	}
}

// A claim cannot be stolen: while a host is claimed, no update gives it
// to another cluster, nor to another machine; released, anyone may claim
// it. The API server refuses, whoever writes (here the admin).
func (e *env) testSSHHostClaimCannotBeStolen(t *testing.T) {
	ctx := ctxFor(t)
	ns := e.api.Namespace(t, "host-claims")
	h := sshHost(ns, "h1")
	h.Spec.ClaimRef = &infrav1.SSHHostClaim{ClusterName: "a", ClusterUID: "uid-a", Purpose: infrav1.ClaimMachine,
		MachineName: "a-m1", MachineUID: "uid-a-m1"}
	if err := e.c.Create(ctx, h); err != nil {
		t.Fatalf("creating a claimed host: %v", err)
	}
	update := func(step string, change func(*infrav1.SSHHostSpec)) error {
		t.Helper()
		cur := &infrav1.SSHHost{}
		if err := e.c.Get(ctx, client.ObjectKeyFromObject(h), cur); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		change(&cur.Spec)
		return e.c.Update(ctx, cur)
	}
	refused := func(step, rule string, err error) {
		t.Helper()
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), rule) {
			t.Errorf("%s: %v, want it refused by %q", step, err, rule)
		}
	}
	allowed := func(step string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}

	refused("cluster A→B", stealRule, update("steal", func(s *infrav1.SSHHostSpec) {
		s.ClaimRef = &infrav1.SSHHostClaim{ClusterName: "b", ClusterUID: "uid-b", Purpose: infrav1.ClaimMachine,
			MachineName: "b-m1", MachineUID: "uid-b-m1"}
	}))
	refused("clusterUID only", stealRule, update("steal uid", func(s *infrav1.SSHHostSpec) { s.ClaimRef.ClusterUID = "uid-b" }))
	refused("machine A1→A2", machineRule, update("swap machine", func(s *infrav1.SSHHostSpec) { s.ClaimRef.MachineUID = "uid-a-m2" }))
	// An empty string is not "unset": it would let A→""→B pass in two
	// steps without unsetting. Typed clients omit it, a merge patch sends it.
	refused("machineUID empty", "spec.claimRef.machineUID", e.c.Patch(ctx, h.DeepCopy(),
		client.RawPatch(types.MergePatchType, []byte(`{"spec":{"claimRef":{"machineUID":""}}}`))))
	e.expectClaim(ctx, t, h, "uid-a", "uid-a-m1")

	// The same machine and cluster may be written again (a no-op claim
	// update, a label change).
	allowed("same claim", update("same", func(s *infrav1.SSHHostSpec) { s.NodeLabels = map[string]string{"x": "y"} }))
	// machineUID: set → unset → set (another machine of the same cluster).
	allowed("machine unset", update("unset machine", func(s *infrav1.SSHHostSpec) {
		s.ClaimRef.MachineName, s.ClaimRef.MachineUID = "", ""
	}))
	e.expectClaim(ctx, t, h, "uid-a", "")
	allowed("machine set", update("set machine", func(s *infrav1.SSHHostSpec) {
		s.ClaimRef.MachineName, s.ClaimRef.MachineUID = "a-m2", "uid-a-m2"
	}))
	e.expectClaim(ctx, t, h, "uid-a", "uid-a-m2")
	// Release, then cluster B claims.
	allowed("release", update("release", func(s *infrav1.SSHHostSpec) { s.ClaimRef = nil }))
	e.expectClaim(ctx, t, h, "", "")
	allowed("claim by B", update("claim", func(s *infrav1.SSHHostSpec) {
		s.ClaimRef = &infrav1.SSHHostClaim{ClusterName: "b", ClusterUID: "uid-b", Purpose: infrav1.ClaimLoadBalancer}
	}))
	e.expectClaim(ctx, t, h, "uid-b", "")
	refused("back to A", stealRule, update("back", func(s *infrav1.SSHHostSpec) { s.ClaimRef.ClusterUID = "uid-a" }))
	e.expectClaim(ctx, t, h, "uid-b", "")
}

func (e *env) expectClaim(ctx context.Context, t *testing.T, h *infrav1.SSHHost, cluster, machine string) {
	t.Helper()
	cur := &infrav1.SSHHost{}
	if err := e.c.Get(ctx, client.ObjectKeyFromObject(h), cur); err != nil {
		t.Fatal(err)
	}
	var gotCluster, gotMachine string
	if c := cur.Spec.ClaimRef; c != nil {
		gotCluster, gotMachine = c.ClusterUID, c.MachineUID
	}
	if gotCluster != cluster || gotMachine != machine {
		t.Errorf("claim is cluster %q machine %q, want %q %q", gotCluster, gotMachine, cluster, machine)
	}
}

// An SSHMachine's providerID, once set, stays: the Node was registered
// with it.
func (e *env) testSSHMachineProviderIDIsSetOnce(t *testing.T) {
	ctx := ctxFor(t)
	ns := e.api.Namespace(t, "machine-providerid")
	m := &infrav1.SSHMachine{ObjectMeta: objMeta(ns, "m1"), Spec: sshMachineSpec()}
	if err := e.c.Create(ctx, m); err != nil {
		t.Fatal(err)
	}
	m.Spec.ProviderID = "eggo://" + ns + "/h1/" + string(m.UID)
	if err := e.c.Update(ctx, m); err != nil {
		t.Fatalf("setting providerID: %v", err)
	}
	for _, id := range []string{"eggo://" + ns + "/h2/" + string(m.UID), ""} {
		changed := m.DeepCopy()
		changed.Spec.ProviderID = id
		if err := e.c.Update(ctx, changed); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "providerID is immutable") {
			t.Errorf("providerID → %q: %v, want refused", id, err)
		}
	}
}

// An SSHCluster claims either a load balancer host or the first master's
// host for its endpoint, not both.
func (e *env) testSSHClusterEndpointSources(t *testing.T) {
	ctx := ctxFor(t)
	ns := e.api.Namespace(t, "cluster-endpoint")
	both := &infrav1.SSHCluster{ObjectMeta: objMeta(ns, "both"), Spec: sshClusterSpec()}
	sel := hostSelector()
	both.Spec.ControlPlaneHostSelector = &sel
	if err := e.c.Create(ctx, both); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "at most one of loadBalancer and controlPlaneHostSelector") {
		t.Errorf("loadBalancer and controlPlaneHostSelector: %v, want refused", err)
	}
	one := &infrav1.SSHCluster{ObjectMeta: objMeta(ns, "one"), Spec: infrav1.SSHClusterSpec{ControlPlaneHostSelector: &sel}}
	if err := e.c.Create(ctx, one); err != nil {
		t.Errorf("controlPlaneHostSelector alone: %v", err)
	}
}
