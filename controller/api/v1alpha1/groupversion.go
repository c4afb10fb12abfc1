// Package v1alpha1 holds the GitOps controller's API: the EggoCluster, a
// cluster eggo deploys from a management cluster.
//
// +kubebuilder:object:generate=true
// +groupName=eggo.io
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is eggo.io/v1alpha1.
	GroupVersion = schema.GroupVersion{Group: "eggo.io", Version: "v1alpha1"}

	// SchemeBuilder registers the types of this group-version.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types of this group-version to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func init() { SchemeBuilder.Register(&EggoCluster{}, &EggoClusterList{}) }
