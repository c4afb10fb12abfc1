// Package v1alpha1 holds eggo's Cluster API bootstrap provider API
// (bootstrap.eggo.io/v1alpha1): EggoConfig, the BootstrapConfig, and its
// template. Contract v1beta2.
//
// +kubebuilder:object:generate=true
// +groupName=bootstrap.eggo.io
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is bootstrap.eggo.io/v1alpha1.
	GroupVersion = schema.GroupVersion{Group: "bootstrap.eggo.io", Version: "v1alpha1"}

	// SchemeBuilder registers the types of this group-version.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types of this group-version to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func init() {
	SchemeBuilder.Register(
		&EggoConfig{}, &EggoConfigList{},
		&EggoConfigTemplate{}, &EggoConfigTemplateList{},
	)
}
