package coretest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cpv1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/internal/testenv"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// TestWithClusterAPICore: a cluster from `clusterctl generate cluster`
// (one master, one worker, eggo's load balancer) comes up under Cluster
// API's own core manager: every Machine Running (core matched its Node by
// the providerID eggo gives the kubelet), the Cluster's infrastructure
// provisioned and its control plane initialized and available, the
// <cluster>-kubeconfig core reads in place; the MachineDeployment scales
// 1 → 2 → 1, the Machine core deletes leaving the cluster through eggo's
// plan and its host going back to the pool; the control-plane Machine is
// UpToDate once applied; a control-plane version bump rolls in place, the
// Machine UpToDate again once recorded; deleting the Cluster destroys it
// through eggo and returns every host to the pool.
func TestWithClusterAPICore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kube-apiserver and Cluster API's core manager")
	}
	core, clusterctl := capiParts(t)
	e := testenv.Start(t)
	namespaces(t, e)
	c, err := client.New(e.API.Config, client.Options{Scheme: e.Scheme})
	must(t, err)
	hosts(t, e, 3)
	kubeconfig := workloadKubeconfig(t, e)

	start(t, "core", []string{"KUBECONFIG=" + e.API.Kubeconfig}, core, "--leader-elect=false",
		"--webhook-port="+strings.Split(freeAddr(t), ":")[1], "--webhook-cert-dir="+webhookCerts(t),
		"--health-addr="+freeAddr(t), "--diagnostics-address="+freeAddr(t), "--insecure-diagnostics")
	eggoCAPI := buildEggoCAPI(t, e)
	for _, p := range []struct{ flag, role string }{{"infrastructure", "infrastructure"}, {"bootstrap", "bootstrap"}, {"control-plane", "controlplane"}} {
		start(t, "eggo-capi-"+p.flag, []string{"KUBECONFIG=" + e.RoleKubeconfig(t, p.role, "eggo-capi-"+p.flag)}, eggoCAPI,
			"--provider="+p.flag, "--leader-elect=false", "--metrics-bind-address=0", "--health-probe-bind-address=0")
	}
	generateCluster(t, e, clusterctl, 1)

	// Up: the load balancer and the master in one plan; core holds the
	// MachineDeployment's worker back until the control plane is stable
	// (its preflight check), then it joins in the next plan.
	lb := infrav1.LoadBalancerNodeName(cluster)
	cp, _ := machineNamesN(t, c, 1, 0)
	gitops(t, c, 1, kubeconfig, append([]string{lb}, cp...)...)
	machinesRunning(t, c, cp...)
	clusterUp(t, c)
	_, md := machineNamesN(t, c, 1, 1)
	gitops(t, c, 2, kubeconfig, append([]string{lb}, append(cp, md...)...)...)
	machinesRunning(t, c, append(cp, md...)...)
	machineUpToDate(t, c, cp[0])

	// 1 → 2 workers: the new Machine joins in the next plan.
	scaleWorkers(t, c, 2)
	_, md2 := machineNamesN(t, c, 1, 2)
	gitops(t, c, 3, kubeconfig, append([]string{lb}, append(cp, md2...)...)...)
	machinesRunning(t, c, append(cp, md2...)...)

	// 2 → 1: core drains and deletes a Machine; its node leaves through
	// an approved plan; then its host is back in the pool.
	scaleWorkers(t, c, 1)
	var kept []string
	eventually(t, 2*time.Minute, "one worker Machine being deleted", func() (bool, string) {
		kept = nil
		var ms clusterv1.MachineList
		must(t, c.List(ctx(t), &ms, client.InNamespace(ns), client.MatchingLabels{clusterv1.MachineDeploymentNameLabel: cluster + "-md-0"}))
		for _, m := range ms.Items {
			if m.DeletionTimestamp.IsZero() {
				kept = append(kept, m.Name)
			}
		}
		return len(kept) == 1 && len(ms.Items) == 2, fmt.Sprint(kept)
	})
	gitops(t, c, 4, kubeconfig, append([]string{lb}, append(cp, kept...)...)...)
	machineNamesN(t, c, 1, 1) // the deleted one is gone
	freeHosts(t, c, 1)

	// A version bump of the control plane is rolled in place: the same
	// Machine, its version recorded once eggo applied it.
	var ecp cpv1.EggoControlPlane
	must(t, c.Get(ctx(t), client.ObjectKey{Namespace: ns, Name: cluster + "-control-plane"}, &ecp))
	ecp.Spec.Version = "v1.37.2"
	must(t, c.Update(ctx(t), &ecp))
	eventually(t, time.Minute, "the configuration at 1.37.2", func() (bool, string) {
		var ec eggov1.EggoCluster
		must(t, c.Get(ctx(t), client.ObjectKey{Namespace: ns, Name: cluster}, &ec))
		return strings.Contains(*ec.Spec.Config.Inline, `kubernetes_version = "1.37.2"`), *ec.Spec.Config.Inline
	})
	gitops(t, c, 5, kubeconfig, append([]string{lb}, append(cp, kept...)...)...)
	eventually(t, time.Minute, "the control plane at v1.37.2, in place", func() (bool, string) {
		var m clusterv1.Machine
		must(t, c.Get(ctx(t), client.ObjectKey{Namespace: ns, Name: cp[0]}, &m))
		must(t, c.Get(ctx(t), client.ObjectKeyFromObject(&ecp), &ecp))
		return m.Spec.Version == "v1.37.2" && ecp.Status.Version == "v1.37.2", m.Spec.Version + " " + ecp.Status.Version
	})
	machineUpToDate(t, c, cp[0])

	// Deleting the Cluster: the worker leaves through a plan, then the
	// control plane destroys the cluster through its EggoCluster; every
	// object goes and every host is back in the pool.
	holdForDestroy(t, c)
	must(t, c.Delete(ctx(t), &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cluster}}))
	gitops(t, c, 6, kubeconfig, append([]string{lb}, cp...)...)
	destroy(t, c)
	eventually(t, 3*time.Minute, "the Cluster and its objects gone", func() (bool, string) {
		var ms clusterv1.MachineList
		must(t, c.List(ctx(t), &ms, client.InNamespace(ns)))
		err := c.Get(ctx(t), client.ObjectKey{Namespace: ns, Name: cluster}, &clusterv1.Cluster{})
		return apierrors.IsNotFound(err) && len(ms.Items) == 0, fmt.Sprintf("%d Machines, Cluster: %v", len(ms.Items), err)
	})
	freeHosts(t, c, 4)
}

// machineUpToDate waits until control-plane Machine name is UpToDate (the
// control plane sets it: core leaves it to a control-plane Machine's
// owner) and core, aggregating it, says the Cluster's control-plane
// Machines are up to date.
func machineUpToDate(t *testing.T, c client.Client, name string) {
	t.Helper()
	eventually(t, time.Minute, "Machine "+name+" and the Cluster's control-plane Machines UpToDate", func() (bool, string) {
		var m clusterv1.Machine
		var cl clusterv1.Cluster
		must(t, c.Get(ctx(t), client.ObjectKey{Namespace: ns, Name: name}, &m))
		must(t, c.Get(ctx(t), client.ObjectKey{Namespace: ns, Name: cluster}, &cl))
		mc := meta.FindStatusCondition(m.Status.Conditions, clusterv1.MachineUpToDateCondition)
		cc := meta.FindStatusCondition(cl.Status.Conditions, clusterv1.ClusterControlPlaneMachinesUpToDateCondition)
		ok := mc != nil && mc.Status == metav1.ConditionTrue && mc.Reason == clusterv1.MachineUpToDateReason &&
			cc != nil && cc.Status == metav1.ConditionTrue
		return ok, fmt.Sprintf("Machine %+v, Cluster %+v", mc, cc)
	})
}

// freeHosts waits until n hosts of the pool are unclaimed and Available.
func freeHosts(t *testing.T, c client.Client, n int) {
	t.Helper()
	eventually(t, time.Minute, fmt.Sprintf("%d hosts back in the pool", n), func() (bool, string) {
		var hs infrav1.SSHHostList
		must(t, c.List(ctx(t), &hs, client.InNamespace(ns)))
		free := 0
		var states []string
		for _, h := range hs.Items {
			states = append(states, fmt.Sprintf("%s=%s/%v", h.Name, h.Status.Phase, h.Spec.ClaimRef != nil))
			if h.Spec.ClaimRef == nil && h.Status.Phase == infrav1.SSHHostAvailable {
				free++
			}
		}
		return free == n, strings.Join(states, " ")
	})
}

// clusterUp checks the Cluster as core reports it, and the contract's
// kubeconfig Secret.
func clusterUp(t *testing.T, c client.Client) {
	t.Helper()
	eventually(t, 2*time.Minute, "the Cluster's infrastructure provisioned and control plane initialized and available", func() (bool, string) {
		var cl clusterv1.Cluster
		must(t, c.Get(ctx(t), client.ObjectKey{Namespace: ns, Name: cluster}, &cl))
		in := cl.Status.Initialization
		ok := in.InfrastructureProvisioned != nil && *in.InfrastructureProvisioned && in.ControlPlaneInitialized != nil && *in.ControlPlaneInitialized &&
			meta.IsStatusConditionTrue(cl.Status.Conditions, clusterv1.ClusterControlPlaneAvailableCondition)
		return ok, fmt.Sprintf("%+v %v", in, cl.Status.Conditions)
	})
	var ecp cpv1.EggoControlPlane
	must(t, c.Get(ctx(t), client.ObjectKey{Namespace: ns, Name: cluster + "-control-plane"}, &ecp))
	if !meta.IsStatusConditionTrue(ecp.Status.Conditions, cpv1.AvailableCondition) || ecp.Status.ReadyReplicas == nil || *ecp.Status.ReadyReplicas != 1 {
		t.Errorf("the EggoControlPlane: %+v", ecp.Status)
	}
	var s corev1.Secret
	must(t, c.Get(ctx(t), client.ObjectKey{Namespace: ns, Name: cluster + "-kubeconfig"}, &s))
	if s.Type != clusterv1.ClusterSecretType || len(s.Data["value"]) == 0 {
		t.Errorf("%s-kubeconfig: type %s, %d bytes", cluster, s.Type, len(s.Data["value"]))
	}
}

func scaleWorkers(t *testing.T, c client.Client, n int32) {
	t.Helper()
	var md clusterv1.MachineDeployment
	must(t, c.Get(ctx(t), client.ObjectKey{Namespace: ns, Name: cluster + "-md-0"}, &md))
	md.Spec.Replicas = &n
	must(t, c.Update(ctx(t), &md))
}

// machineNames waits for the first control-plane and worker Machines.
func machineNames(t *testing.T, c client.Client) (cp, md []string) {
	return machineNamesN(t, c, 1, 1)
}

// machineNamesN waits until the cluster has cpN control-plane and mdN
// worker Machines, and names them.
func machineNamesN(t *testing.T, c client.Client, cpN, mdN int) (cp, md []string) {
	t.Helper()
	eventually(t, 2*time.Minute, fmt.Sprintf("%d control-plane and %d worker Machines", cpN, mdN), func() (bool, string) {
		cp, md = nil, nil
		var ms clusterv1.MachineList
		must(t, c.List(ctx(t), &ms, client.InNamespace(ns)))
		for _, m := range ms.Items {
			if _, ok := m.Labels[clusterv1.MachineControlPlaneLabel]; ok {
				cp = append(cp, m.Name)
			} else {
				md = append(md, m.Name)
			}
		}
		return len(cp) == cpN && len(md) == mdN, fmt.Sprint(cp, md)
	})
	return cp, md
}
