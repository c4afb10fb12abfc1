// Package v1alpha1 holds eggo's Cluster API infrastructure provider API
// (infrastructure.eggo.io/v1alpha1): SSHHost, one host of a pool that
// machines claim; SSHCluster, the InfraCluster; SSHMachine, the
// InfraMachine; and their templates. Contract v1beta2.
//
// +kubebuilder:object:generate=true
// +groupName=infrastructure.eggo.io
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is infrastructure.eggo.io/v1alpha1.
	GroupVersion = schema.GroupVersion{Group: "infrastructure.eggo.io", Version: "v1alpha1"}

	// SchemeBuilder registers the types of this group-version.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types of this group-version to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func init() {
	SchemeBuilder.Register(
		&SSHHost{}, &SSHHostList{},
		&SSHCluster{}, &SSHClusterList{},
		&SSHClusterTemplate{}, &SSHClusterTemplateList{},
		&SSHMachine{}, &SSHMachineList{},
		&SSHMachineTemplate{}, &SSHMachineTemplateList{},
	)
}
