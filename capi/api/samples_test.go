package api_test

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"

	bootstrapv1 "github.com/eggo-project/eggo/capi/api/bootstrap/v1alpha1"
	controlplanev1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
)

const testHostKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ0t6ZyVh2x8q7mYk2Qn3m1L8d8oTtQ0M4pXk8o6d9Zr root@host-1"

func objMeta(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{clusterv1.ClusterNameLabel: "c1"}}
}

func sshHost(ns, name string) *infrav1.SSHHost {
	return &infrav1.SSHHost{ObjectMeta: objMeta(ns, name), Spec: infrav1.SSHHostSpec{
		Pool: "default", Address: "10.0.0.11", SSHKeySecretRef: infrav1.SecretReference{Name: "hosts-key"},
		HostKey: testHostKey, NodeLabels: map[string]string{"rack": "r1"},
	}}
}

func hostSelector() infrav1.HostSelector {
	return infrav1.HostSelector{Pool: "default", MatchLabels: map[string]string{"role": "cp"}}
}

func sshMachineSpec() infrav1.SSHMachineSpec {
	return infrav1.SSHMachineSpec{HostSelector: hostSelector()}
}

func sshClusterSpec() infrav1.SSHClusterSpec {
	return infrav1.SSHClusterSpec{LoadBalancer: &infrav1.SSHLoadBalancer{HostSelector: hostSelector()}}
}

func eggoConfigSpec() bootstrapv1.EggoConfigSpec {
	return bootstrapv1.EggoConfigSpec{
		NodeLabels:         map[string]string{"tier": "web"},
		Taints:             []corev1.Taint{{Key: "dedicated", Value: "web", Effect: corev1.TaintEffectNoSchedule}},
		UninitializedTaint: true,
	}
}

func eggoSpec() controlplanev1.EggoSpec {
	return controlplanev1.EggoSpec{
		Bundle: eggov1.BundleSource{Path: "v1.36.5", Volume: eggov1.BundleVolume{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "eggo-bundle"}}},
		IdentitySecretRef: &corev1.LocalObjectReference{Name: "c1-identity"},
		Recipients:        []string{"age1qyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqs3290gq"},
		Network:           controlplanev1.NetworkSpec{ServiceCIDR: "10.96.0.0/12", PodCIDR: "10.244.0.0/16"},
	}
}

func controlPlane(ns, name string, replicas int32) *controlplanev1.EggoControlPlane {
	return &controlplanev1.EggoControlPlane{ObjectMeta: objMeta(ns, name), Spec: controlplanev1.EggoControlPlaneSpec{
		Replicas: &replicas,
		Version:  "v1.36.5",
		MachineTemplate: controlplanev1.EggoControlPlaneMachineTemplate{
			ObjectMeta: clusterv1.ObjectMeta{Labels: map[string]string{"tier": "cp"}},
			Spec: controlplanev1.EggoControlPlaneMachineTemplateSpec{
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{
					APIGroup: infrav1.GroupVersion.Group, Kind: "SSHMachineTemplate", Name: "cp"},
			},
		},
		Eggo: eggoSpec(),
	}}
}

// samples is one valid object of every kind of the three groups, by kind.
func samples(ns string) map[string]client.Object {
	return map[string]client.Object{
		"SSHHost":    sshHost(ns, "host-1"),
		"SSHCluster": &infrav1.SSHCluster{ObjectMeta: objMeta(ns, "c1"), Spec: sshClusterSpec()},
		"SSHClusterTemplate": &infrav1.SSHClusterTemplate{ObjectMeta: objMeta(ns, "c1"), Spec: infrav1.SSHClusterTemplateSpec{
			Template: infrav1.SSHClusterTemplateResource{Spec: sshClusterSpec()}}},
		"SSHMachine": &infrav1.SSHMachine{ObjectMeta: objMeta(ns, "m1"), Spec: sshMachineSpec()},
		"SSHMachineTemplate": &infrav1.SSHMachineTemplate{ObjectMeta: objMeta(ns, "cp"), Spec: infrav1.SSHMachineTemplateSpec{
			Template: infrav1.SSHMachineTemplateResource{Spec: sshMachineSpec()}}},
		"EggoConfig": &bootstrapv1.EggoConfig{ObjectMeta: objMeta(ns, "m1"), Spec: eggoConfigSpec()},
		"EggoConfigTemplate": &bootstrapv1.EggoConfigTemplate{ObjectMeta: objMeta(ns, "workers"), Spec: bootstrapv1.EggoConfigTemplateSpec{
			Template: bootstrapv1.EggoConfigTemplateResource{Spec: eggoConfigSpec()}}},
		"EggoControlPlane": controlPlane(ns, "c1", 1),
		"EggoControlPlaneTemplate": &controlplanev1.EggoControlPlaneTemplate{ObjectMeta: objMeta(ns, "c1"),
			Spec: controlplanev1.EggoControlPlaneTemplateSpec{Template: controlplanev1.EggoControlPlaneTemplateResource{
				Spec: controlplanev1.EggoControlPlaneTemplateResourceSpec{Eggo: eggoSpec()}}}},
	}
}
