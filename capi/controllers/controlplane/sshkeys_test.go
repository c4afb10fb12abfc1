package controlplane

import (
	"context"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// TestControlPlaneHostsWithTwoKeys: a worker joins on a host whose SSH
// key Secret is not the master's. The EggoCluster (as the API server
// validates it) is updated to mount both, the first by name as
// sshKeySecretRef, and each node connects with its own host's key; the
// plan that adds the worker is approved as any other.
func TestControlPlaneHostsWithTwoKeys(t *testing.T) {
	e := startCPEnv(t)
	ctx := context.Background()
	ns := "cp-keys"
	e.setup(t, ns, 1)
	e.reconcile(t, ns)
	ms := e.machines(t, ns)
	cpm := ms[0].Name
	e.provisionWithKey(t, &ms[0], "h1", "10.0.0.11", `["master","etcd"]`, "rack-b-key")
	e.reconcile(t, ns)
	ec := &eggov1.EggoCluster{}
	e.must(t, e.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "work"}, ec))
	if ec.Spec.SSHKeySecretRef.Name != "rack-b-key" || len(ec.Spec.AdditionalSSHKeySecretRefs) != 0 {
		t.Fatalf("one host: sshKeySecretRef %v, additionalSSHKeySecretRefs %v", ec.Spec.SSHKeySecretRef, ec.Spec.AdditionalSSHKeySecretRefs)
	}
	e.planned(t, ec, "cp00000000000000", &eggov1.PlanSummary{Add: 1, Nodes: []eggov1.NodePlan{{Name: cpm, Operations: []string{"create host." + cpm}}}})
	e.reconcile(t, ns)
	e.appliedAll(t, ec, "cp00000000000000", cpm)
	e.reconcile(t, ns)

	// A worker on a host of another pool, whose key is another Secret,
	// one that sorts first.
	worker := e.newWorker(t, ns, "work-md-x1")
	e.provisionWithKey(t, worker, "h2", "10.0.0.21", `["worker"]`, "pool-a-key")
	gen := ec.Generation
	e.reconcile(t, ns)
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	if ec.Generation != gen+1 || ec.Spec.SSHKeySecretRef.Name != "pool-a-key" ||
		!reflect.DeepEqual(ec.Spec.AdditionalSSHKeySecretRefs, []corev1.LocalObjectReference{{Name: "rack-b-key"}}) {
		t.Fatalf("generation %d (was %d), sshKeySecretRef %v, additionalSSHKeySecretRefs %v: want pool-a-key, then rack-b-key",
			ec.Generation, gen, ec.Spec.SSHKeySecretRef, ec.Spec.AdditionalSSHKeySecretRefs)
	}
	hcl := *ec.Spec.Config.Inline
	for node, file := range map[string]string{cpm: eggov1.SSHKeyPath("rack-b-key"), "work-md-x1": eggov1.SSHKeyPath("pool-a-key")} {
		block := hcl[strings.Index(hcl, `node "`+node+`"`):]
		block = block[:strings.Index(block, "\n}\n")]
		if !strings.Contains(block, `private_key_file = "`+file+`"`) {
			t.Errorf("node %s does not connect with %s:\n%s", node, file, block)
		}
	}
	rv := ec.ResourceVersion
	e.reconcile(t, ns)
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	if ec.ResourceVersion != rv {
		t.Error("an unchanged cluster's EggoCluster was written again")
	}

	// The plan that adds the worker: approved.
	e.planned(t, ec, "md00000000000000", &eggov1.PlanSummary{Add: 1, Nodes: []eggov1.NodePlan{{Name: "work-md-x1", Operations: []string{"create host.work-md-x1"}}}})
	e.reconcile(t, ns)
	e.must(t, e.c.Get(ctx, client.ObjectKeyFromObject(ec), ec))
	if ec.Annotations[eggov1.ApproveAnnotation] != "md00000000000000" {
		t.Errorf("the plan adding the worker was not approved: %+v", e.controlPlane(t, ns).Status.Conditions)
	}
}
