package jobrun

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// Every ConfigMap and Secret a Job writes or deletes — a plan's objects,
// <cluster>-nodes, <cluster>-kubeconfig and <cluster>-ca — is first
// checked to be eggo's for this EggoCluster (checkOwned): labelled
// eggo.io/cluster=<cluster> and, when the Job knows the EggoCluster's UID
// (-cluster-uid, which the controller always gives), owned by it (in the
// state namespace: naming its namespace and UID, see objectMeta). These
// names and labels may be taken by someone else's object, which a Job
// neither overwrites nor deletes: it is refused, named (*ForeignError).
// An update is made at the resourceVersion the check read, and a delete
// is conditioned on the UID and resourceVersion it saw, so an object
// swapped in after the check is neither overwritten nor deleted.

// ForeignError refuses an object that is not eggo's for the EggoCluster.
type ForeignError struct {
	Kind, Namespace, Name string
	Cluster               string // the EggoCluster's name
	Missing               string // what makes it not eggo's, e.g. "no label eggo.io/cluster=demo"
	Not                   string // what was not done to it: "overwritten", "deleted", "restored"
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("%s %s/%s exists and is not eggo's for EggoCluster %s (%s): not %s",
		e.Kind, e.Namespace, e.Name, e.Cluster, e.Missing, e.Not)
}

// checkOwned is nil when m is eggo's for o's EggoCluster, else the
// *ForeignError saying what it lacks and that it was not (not) changed.
func checkOwned(o Options, kind string, m metav1.Object, not string) error {
	why := missing(o, m)
	if why == "" {
		return nil
	}
	return &ForeignError{Kind: kind, Namespace: m.GetNamespace(), Name: m.GetName(), Cluster: o.Cluster, Missing: why, Not: not}
}

// missing is what makes m not eggo's for o's EggoCluster ("" when it is).
func missing(o Options, m metav1.Object) string {
	switch got, ok := m.GetLabels()[v1alpha1.LabelCluster]; {
	case !ok:
		return fmt.Sprintf("no label %s=%s", v1alpha1.LabelCluster, o.Cluster)
	case got != o.Cluster:
		return fmt.Sprintf("label %s=%s, not %s", v1alpha1.LabelCluster, got, o.Cluster)
	}
	if o.ClusterUID == "" {
		return ""
	}
	if ns := m.GetNamespace(); ns != "" && ns != o.Namespace {
		return missingInStateNamespace(o, m)
	}
	for _, r := range m.GetOwnerReferences() {
		gv, err := schema.ParseGroupVersion(r.APIVersion)
		if err == nil && gv.Group == v1alpha1.GroupVersion.Group && r.Kind == "EggoCluster" && string(r.UID) == o.ClusterUID {
			return ""
		}
	}
	return fmt.Sprintf("no ownerReference to EggoCluster %s uid %s", o.Cluster, o.ClusterUID)
}

// missingInStateNamespace: an object of the state namespace names its
// EggoCluster's namespace and UID (objectMeta).
func missingInStateNamespace(o Options, m metav1.Object) string {
	if got := m.GetLabels()[v1alpha1.LabelClusterNamespace]; got != o.Namespace {
		return fmt.Sprintf("label %s=%q, not %s", v1alpha1.LabelClusterNamespace, got, o.Namespace)
	}
	if got := m.GetAnnotations()[v1alpha1.AnnotationClusterUID]; got != o.ClusterUID {
		return fmt.Sprintf("annotation %s=%q, not %s", v1alpha1.AnnotationClusterUID, got, o.ClusterUID)
	}
	return ""
}

// objects is the typed client of one kind (ConfigMaps, Secrets) in one
// namespace, as client-go makes it.
type objects[T any] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Get(context.Context, string, metav1.GetOptions) (T, error)
	Update(context.Context, T, metav1.UpdateOptions) (T, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
}

// store writes and deletes one kind's objects, each checked first.
type store[T metav1.Object] struct {
	kind string
	api  objects[T]
	// set copies want's labels and content onto cur, the object there.
	set  func(cur, want T)
	list func(context.Context, metav1.ListOptions) ([]T, error)
}

func configMaps(cs kubernetes.Interface, ns string) store[*corev1.ConfigMap] {
	api := cs.CoreV1().ConfigMaps(ns)
	return store[*corev1.ConfigMap]{kind: "ConfigMap", api: api,
		set: func(cur, want *corev1.ConfigMap) {
			cur.Labels, cur.Data, cur.BinaryData = want.Labels, want.Data, want.BinaryData
		},
		list: func(ctx context.Context, lo metav1.ListOptions) ([]*corev1.ConfigMap, error) {
			l, err := api.List(ctx, lo)
			if err != nil {
				return nil, err
			}
			return ptrs(l.Items), nil
		}}
}

func secrets(cs kubernetes.Interface, ns string) store[*corev1.Secret] {
	api := cs.CoreV1().Secrets(ns)
	return store[*corev1.Secret]{kind: "Secret", api: api,
		set: func(cur, want *corev1.Secret) { cur.Labels, cur.Data, cur.StringData = want.Labels, want.Data, nil },
		list: func(ctx context.Context, lo metav1.ListOptions) ([]*corev1.Secret, error) {
			l, err := api.List(ctx, lo)
			if err != nil {
				return nil, err
			}
			return ptrs(l.Items), nil
		}}
}

func ptrs[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// upsert creates obj or, when an object of its name is there and is
// eggo's for o's EggoCluster, gives it obj's labels and content. A
// foreign one is refused, unchanged.
func (s store[T]) upsert(ctx context.Context, o Options, obj T) error {
	_, err := s.api.Create(ctx, obj, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	cur, err := s.api.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if err != nil {
		return err
	}
	if err := checkOwned(o, s.kind, cur, "overwritten"); err != nil {
		return err
	}
	s.set(cur, obj)
	// At the resourceVersion read: one changed since is a conflict.
	_, err = s.api.Update(ctx, cur, metav1.UpdateOptions{})
	return err
}

// deleteOwned deletes cur (as read or listed) when it is eggo's for o's
// EggoCluster, on condition that it is still that object, unchanged: one
// changed or swapped in since is a conflict, and left.
func (s store[T]) deleteOwned(ctx context.Context, o Options, cur T) error {
	if err := checkOwned(o, s.kind, cur, "deleted"); err != nil {
		return err
	}
	uid, rv := cur.GetUID(), cur.GetResourceVersion()
	err := s.api.Delete(ctx, cur.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
