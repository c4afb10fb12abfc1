package coretest

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/controllers/infrastructure"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// eventually polls cond every half second until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	var last string
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		var ok bool
		if ok, last = cond(); ok {
			return
		}
	}
	t.Fatalf("timed out after %s waiting for %s: %s", d, what, last)
}

var nodeBlock = regexp.MustCompile(`(?m)^node "([^"]+)"`)

// nodesOf are the nodes the EggoCluster's configuration names.
func nodesOf(ec *eggov1.EggoCluster) []string {
	var out []string
	if ec.Spec.Config.Inline == nil {
		return nil
	}
	for _, m := range nodeBlock.FindAllStringSubmatch(*ec.Spec.Config.Inline, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}

// gitops plays the GitOps controller and its Jobs for one generation of
// the EggoCluster: a plan (creating the nodes it names that eggo's state
// lacks, deleting those it no longer names) waits for approval; once the
// control plane approved it by its hash, the apply succeeds: status.nodes
// are the configuration's, and the Job published the capi client's
// kubeconfig in the state namespace. want is the nodes the configuration
// must name first.
func gitops(t *testing.T, c client.Client, step int, kubeconfig []byte, want ...string) {
	t.Helper()
	ec := &eggov1.EggoCluster{}
	sort.Strings(want)
	eventually(t, 2*time.Minute, fmt.Sprintf("the EggoCluster to name nodes %v", want), func() (bool, string) {
		if err := c.Get(ctx(t), client.ObjectKey{Namespace: ns, Name: cluster}, ec); err != nil {
			return false, err.Error()
		}
		got := nodesOf(ec)
		return strings.Join(got, " ") == strings.Join(want, " "), fmt.Sprint(got)
	})
	applied := map[string]bool{}
	for _, n := range ec.Status.Nodes {
		applied[n.Name] = true
	}
	summary := &eggov1.PlanSummary{}
	for _, n := range want {
		if !applied[n] {
			summary.Add++
			summary.Nodes = append(summary.Nodes, eggov1.NodePlan{Name: n, Operations: []string{"create host." + n}})
		}
		delete(applied, n)
	}
	for n := range applied {
		summary.Destroy++
		summary.Nodes = append(summary.Nodes, eggov1.NodePlan{Name: n, Operations: []string{"delete host." + n}})
	}
	hash := fmt.Sprintf("plan%012d", step)
	ec.Status.ObservedGeneration, ec.Status.LastPlanHash, ec.Status.PlanSummary = ec.Generation, hash, summary
	meta.SetStatusCondition(&ec.Status.Conditions, metav1.Condition{Type: eggov1.ConditionApprovalPending, Status: metav1.ConditionTrue, Reason: eggov1.ReasonAwaitingApproval})
	meta.SetStatusCondition(&ec.Status.Conditions, metav1.Condition{Type: eggov1.ConditionReady, Status: metav1.ConditionFalse, Reason: eggov1.ReasonAwaitingApproval})
	must(t, c.Status().Update(ctx(t), ec))
	eventually(t, time.Minute, "the control plane to approve plan "+hash, func() (bool, string) {
		must(t, c.Get(ctx(t), client.ObjectKeyFromObject(ec), ec))
		return ec.Annotations[eggov1.ApproveAnnotation] == hash, fmt.Sprint(ec.Annotations)
	})
	publish(t, c, ec, kubeconfig)
	ec.Status.Nodes = nil
	for _, n := range want {
		ec.Status.Nodes = append(ec.Status.Nodes, eggov1.NodeStatus{Name: n, State: "Applied (12 resources)"})
	}
	ec.Status.LastAppliedPlanHash, ec.Status.StateNamespace = hash, stateNS
	meta.SetStatusCondition(&ec.Status.Conditions, metav1.Condition{Type: eggov1.ConditionApprovalPending, Status: metav1.ConditionFalse, Reason: eggov1.ReasonApplied})
	meta.SetStatusCondition(&ec.Status.Conditions, metav1.Condition{Type: eggov1.ConditionReady, Status: metav1.ConditionTrue, Reason: eggov1.ReasonApplied})
	must(t, c.Status().Update(ctx(t), ec))
}

// publish writes what an apply Job publishes in the state namespace for
// ec: the capi client's kubeconfig and the CA certificate.
func publish(t *testing.T, c client.Client, ec *eggov1.EggoCluster, kubeconfig []byte) {
	t.Helper()
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: stateNS,
			Labels:      map[string]string{eggov1.LabelCluster: ec.Name, eggov1.LabelClusterNamespace: ns},
			Annotations: map[string]string{eggov1.AnnotationClusterUID: string(ec.UID)}}
	}
	for _, s := range []*corev1.Secret{
		{ObjectMeta: meta(eggov1.ClientKubeconfigSecretName(cluster, "capi")), Data: map[string][]byte{"value": kubeconfig}},
		{ObjectMeta: meta(eggov1.CASecretName(cluster)), Data: map[string][]byte{"tls.crt": []byte("CA")}},
	} {
		if err := c.Create(ctx(t), s); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

// registerNodes plays the kubelets eggo started: a Node for each Machine
// that has none, named after it, registered with its SSHMachine's
// providerID, Ready.
func registerNodes(t *testing.T, c client.Client) {
	t.Helper()
	var ms clusterv1.MachineList
	must(t, c.List(ctx(t), &ms, client.InNamespace(ns)))
	for _, m := range ms.Items {
		var sm infrav1.SSHMachine
		must(t, c.Get(ctx(t), client.ObjectKey{Namespace: ns, Name: m.Spec.InfrastructureRef.Name}, &sm))
		if sm.Spec.ProviderID == "" || !m.DeletionTimestamp.IsZero() {
			continue
		}
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: m.Name}, Spec: corev1.NodeSpec{ProviderID: sm.Spec.ProviderID}}
		if err := c.Create(ctx(t), node); apierrors.IsAlreadyExists(err) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		node.Status = corev1.NodeStatus{
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}},
			NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "v1.36.5"},
		}
		must(t, c.Status().Update(ctx(t), node))
	}
}

// machinesRunning waits until each named Machine is Running (core found
// its Node by providerID).
func machinesRunning(t *testing.T, c client.Client, names ...string) {
	t.Helper()
	eventually(t, 3*time.Minute, fmt.Sprintf("Machines %v Running", names), func() (bool, string) {
		registerNodes(t, c)
		var ms clusterv1.MachineList
		must(t, c.List(ctx(t), &ms, client.InNamespace(ns)))
		phase := map[string]string{}
		for _, m := range ms.Items {
			if m.Status.NodeRef.IsDefined() {
				phase[m.Name] = m.Status.Phase
			}
		}
		for _, n := range names {
			if phase[n] != string(clusterv1.MachinePhaseRunning) {
				return false, fmt.Sprint(phase)
			}
		}
		return true, ""
	})
}

// destroyFinalizer stands for the GitOps controller's finalizer, which
// holds a deleted EggoCluster while its destroy Job runs.
const destroyFinalizer = "coretest.eggo.io/destroy"

// holdForDestroy puts the GitOps controller's finalizer on the
// EggoCluster, as the controller does (the test plays it).
func holdForDestroy(t *testing.T, c client.Client) {
	t.Helper()
	var ec eggov1.EggoCluster
	must(t, c.Get(ctx(t), client.ObjectKey{Namespace: ns, Name: cluster}, &ec))
	controllerutil.AddFinalizer(&ec, destroyFinalizer)
	must(t, c.Update(ctx(t), &ec))
}

// destroy plays eggo's destroy of the deleted EggoCluster: its destroy
// Job runs (status.activeJob) until every SSHMachine left has seen it run
// — so their hosts come back Available, not NeedsCleanup — then the
// finalizer goes, as the controller drops it once the Job succeeded.
func destroy(t *testing.T, c client.Client) {
	t.Helper()
	var ec eggov1.EggoCluster
	eventually(t, 2*time.Minute, "the EggoCluster deleted by the control plane", func() (bool, string) {
		must(t, c.Get(ctx(t), client.ObjectKey{Namespace: ns, Name: cluster}, &ec))
		return !ec.DeletionTimestamp.IsZero(), "not yet"
	})
	ec.Status.ActiveJob, ec.Status.ActiveJobPhase = cluster+"-destroy-1", eggov1.PhaseDestroy
	must(t, c.Status().Update(ctx(t), &ec))
	eventually(t, time.Minute, "every SSHMachine seeing eggo's destroy run", func() (bool, string) {
		var sms infrav1.SSHMachineList
		must(t, c.List(ctx(t), &sms, client.InNamespace(ns)))
		for _, sm := range sms.Items {
			if !strings.HasPrefix(sm.Annotations[infrastructure.DeletionAnnotation], "Destroy/") {
				return false, sm.Name + ": " + sm.Annotations[infrastructure.DeletionAnnotation]
			}
		}
		return true, ""
	})
	must(t, c.Get(ctx(t), client.ObjectKeyFromObject(&ec), &ec))
	controllerutil.RemoveFinalizer(&ec, destroyFinalizer)
	must(t, c.Update(ctx(t), &ec))
}
