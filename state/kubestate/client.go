package kubestate

import (
	"context"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

// The backend reads and writes two kinds, Secrets and Leases, through REST
// clients over a scheme of their two group versions. client-go's typed
// clients would register every API group of Kubernetes instead: eggo's
// binary went from 33 to 68 MB with them (47 MB with these) and its
// start-up work doubled, paid by every command, whatever its backend.

// resource is one namespaced resource of kind T (list kind L).
type resource[T, L runtime.Object] struct {
	rc       rest.Interface
	ns, name string // namespace; plural resource name ("secrets")
	params   runtime.ParameterCodec
	newObj   func() T
	newList  func() L
}

// clients makes the Secret and Lease clients for namespace ns.
func clients(rc *rest.Config, ns string) (secrets resource[*corev1.Secret, *corev1.SecretList], leases resource[*coordv1.Lease, *coordv1.LeaseList], err error) {
	scheme := runtime.NewScheme()
	if err = corev1.AddToScheme(scheme); err != nil {
		return
	}
	if err = coordv1.AddToScheme(scheme); err != nil {
		return
	}
	codecs := serializer.NewCodecFactory(scheme).WithoutConversion()
	params := runtime.NewParameterCodec(scheme)
	core, err := restClient(rc, corev1.SchemeGroupVersion, "/api", codecs)
	if err != nil {
		return
	}
	coord, err := restClient(rc, coordv1.SchemeGroupVersion, "/apis", codecs)
	if err != nil {
		return
	}
	secrets = resource[*corev1.Secret, *corev1.SecretList]{core, ns, "secrets", params,
		func() *corev1.Secret { return &corev1.Secret{} }, func() *corev1.SecretList { return &corev1.SecretList{} }}
	leases = resource[*coordv1.Lease, *coordv1.LeaseList]{coord, ns, "leases", params,
		func() *coordv1.Lease { return &coordv1.Lease{} }, func() *coordv1.LeaseList { return &coordv1.LeaseList{} }}
	return
}

func restClient(rc *rest.Config, gv schema.GroupVersion, apiPath string, codecs runtime.NegotiatedSerializer) (*rest.RESTClient, error) {
	c := rest.CopyConfig(rc)
	c.GroupVersion, c.APIPath, c.NegotiatedSerializer = &gv, apiPath, codecs
	return rest.RESTClientFor(c)
}

func (r resource[T, L]) get(ctx context.Context, name string) (T, error) {
	out := r.newObj()
	err := r.rc.Get().Namespace(r.ns).Resource(r.name).Name(name).Do(ctx).Into(out)
	return out, err
}

func (r resource[T, L]) list(ctx context.Context, selector string) (L, error) {
	out := r.newList()
	err := r.rc.Get().Namespace(r.ns).Resource(r.name).
		VersionedParams(&metav1.ListOptions{LabelSelector: selector}, r.params).Do(ctx).Into(out)
	return out, err
}

func (r resource[T, L]) create(ctx context.Context, obj T) (T, error) {
	out := r.newObj()
	err := r.rc.Post().Namespace(r.ns).Resource(r.name).Body(obj).Do(ctx).Into(out)
	return out, err
}

// update replaces the object name with obj, at obj's resourceVersion.
func (r resource[T, L]) update(ctx context.Context, name string, obj T) (T, error) {
	out := r.newObj()
	err := r.rc.Put().Namespace(r.ns).Resource(r.name).Name(name).Body(obj).Do(ctx).Into(out)
	return out, err
}

// delete deletes obj, only while it is the object read (its UID) at the
// version read (its resourceVersion): one replaced or changed since is
// not deleted (a Conflict).
func (r resource[T, L]) delete(ctx context.Context, obj metav1.Object) error {
	uid, rev := obj.GetUID(), obj.GetResourceVersion()
	opts := &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rev}}
	return r.rc.Delete().Namespace(r.ns).Resource(r.name).Name(obj.GetName()).Body(opts).Do(ctx).Error()
}
