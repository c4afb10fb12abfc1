package controlplane

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	bootstrapv1 "github.com/eggo-project/eggo/capi/api/bootstrap/v1alpha1"
	cpv1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
)

// controlPlaneMachines are the Machines cp controls, oldest first.
func (r *Reconciler) controlPlaneMachines(ctx context.Context, cp *cpv1.EggoControlPlane, cluster string) ([]clusterv1.Machine, error) {
	var list clusterv1.MachineList
	if err := r.APIReader.List(ctx, &list, client.InNamespace(cp.Namespace),
		client.MatchingLabels{clusterv1.ClusterNameLabel: cluster}, client.HasLabels{clusterv1.MachineControlPlaneLabel}); err != nil {
		return nil, err
	}
	var out []clusterv1.Machine
	for _, m := range list.Items {
		if metav1.IsControlledBy(&m, cp) {
			out = append(out, m)
		}
	}
	sortOldestFirst(out)
	return out, nil
}

// createMachine adds one control-plane machine: its SSHMachine from the
// template spec.machineTemplate names, its EggoConfig, and the Machine
// that ties them, all named alike. The SSHMachine and
// the EggoConfig come first, so the Machine never names what is not
// there; the Machine takes them over (Cluster API sets itself their
// owner).
func (r *Reconciler) createMachine(ctx context.Context, cp *cpv1.EggoControlPlane, cluster *clusterv1.Cluster) error {
	ref := cp.Spec.MachineTemplate.Spec.InfrastructureRef
	if ref.APIGroup != infrav1.GroupVersion.Group || ref.Kind != "SSHMachineTemplate" {
		return fmt.Errorf("spec.machineTemplate.spec.infrastructureRef names %s %s: eggo's control plane runs on SSHMachineTemplates (%s)",
			ref.Kind, ref.APIGroup, infrav1.GroupVersion.Group)
	}
	var tmpl infrav1.SSHMachineTemplate
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: cp.Namespace, Name: ref.Name}, &tmpl); err != nil {
		return fmt.Errorf("the machine template %s: %w", ref.Name, err)
	}
	name := cp.Name + "-" + utilrand.String(5)
	labels := map[string]string{clusterv1.ClusterNameLabel: cluster.Name, clusterv1.MachineControlPlaneLabel: ""}
	for k, v := range cp.Spec.MachineTemplate.ObjectMeta.Labels {
		labels[k] = v
	}
	meta := func() metav1.ObjectMeta {
		l := make(map[string]string, len(labels))
		for k, v := range labels {
			l[k] = v
		}
		return metav1.ObjectMeta{Name: name, Namespace: cp.Namespace, Labels: l, Annotations: cp.Spec.MachineTemplate.ObjectMeta.Annotations}
	}
	infra := &infrav1.SSHMachine{ObjectMeta: meta(), Spec: *tmpl.Spec.Template.Spec.DeepCopy()}
	boot := &bootstrapv1.EggoConfig{ObjectMeta: meta()}
	for _, t := range cp.Spec.MachineTemplate.Spec.Taints {
		boot.Spec.Taints = append(boot.Spec.Taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	version := cp.Spec.Version
	machine := &clusterv1.Machine{ObjectMeta: meta(), Spec: clusterv1.MachineSpec{
		ClusterName: cluster.Name,
		Version:     version,
		Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: bootstrapv1.GroupVersion.Group, Kind: "EggoConfig", Name: name}},
		InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "SSHMachine", Name: name},
	}}
	// The Machine is the control plane's; the SSHMachine and EggoConfig
	// are owned by it too, but not controlled: their Machine becomes their
	// controller, as Cluster API's Machine controller makes itself.
	for _, obj := range []client.Object{infra, boot} {
		if err := controllerutil.SetOwnerReference(cp, obj, r.Scheme); err != nil {
			return err
		}
	}
	if err := controllerutil.SetControllerReference(cp, machine, r.Scheme); err != nil {
		return err
	}
	for _, obj := range []client.Object{infra, boot, machine} {
		if err := r.Create(ctx, obj); err != nil {
			return fmt.Errorf("creating %T %s: %w", obj, name, err)
		}
	}
	return nil
}

func sortOldestFirst(ms []clusterv1.Machine) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && older(&ms[j], &ms[j-1]); j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

func older(a, b *clusterv1.Machine) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}
