// Package paused is the contract's pause, as Cluster API's util/paused
// reads it (without its patch and conditions helpers): an object is paused
// when its Cluster has spec.paused or the object carries the annotation
// cluster.x-k8s.io/paused; the Paused condition says which.
package paused

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// Condition is the Paused condition of obj (of kind kind) given its
// Cluster (nil when not known yet): True with the reasons when paused,
// False otherwise.
func Condition(cluster *clusterv1.Cluster, obj metav1.Object, kind string) metav1.Condition {
	var why []string
	if cluster != nil && ptr.Deref(cluster.Spec.Paused, false) {
		why = append(why, "Cluster spec.paused is set to true")
	}
	if _, ok := obj.GetAnnotations()[clusterv1.PausedAnnotation]; ok {
		why = append(why, kind+" has the "+clusterv1.PausedAnnotation+" annotation")
	}
	if len(why) > 0 {
		return metav1.Condition{Type: clusterv1.PausedCondition, Status: metav1.ConditionTrue,
			Reason: clusterv1.PausedReason, Message: strings.Join(why, ", "), ObservedGeneration: obj.GetGeneration()}
	}
	return metav1.Condition{Type: clusterv1.PausedCondition, Status: metav1.ConditionFalse,
		Reason: clusterv1.NotPausedReason, ObservedGeneration: obj.GetGeneration()}
}

// Set puts c into conditions and says whether that changed anything
// (lastTransitionTime moves only when the status does).
func Set(conditions *[]metav1.Condition, c metav1.Condition) bool {
	old := meta.FindStatusCondition(*conditions, c.Type)
	if old != nil && old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message &&
		old.ObservedGeneration == c.ObservedGeneration {
		return false
	}
	meta.SetStatusCondition(conditions, c)
	return true
}
