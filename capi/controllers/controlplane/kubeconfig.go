package controlplane

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	cpv1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// NotAfterAnnotation is, on <cluster>-kubeconfig, when its client
// certificate expires (RFC 3339).
const NotAfterAnnotation = "controlplane.eggo.io/not-after"

// The Cluster API contract's Secrets: in the Cluster's namespace, of type
// cluster.x-k8s.io/secret, labelled with the cluster's name.
func kubeconfigName(cluster string) string { return cluster + "-kubeconfig" }
func caName(cluster string) string         { return cluster + "-ca" }

// publishAccess copies the kubeconfig of the configuration's client
// "capi", which the apply Job published in the state namespace, into the
// Cluster's namespace as <cluster>-kubeconfig (key value), and the
// cluster CA's certificate as <cluster>-ca (tls.crt only): what Cluster
// API's core and clusterctl read. The admin kubeconfig is never copied.
// Only Secrets the Jobs published for this very EggoCluster (its
// namespace label and UID annotation) are read. It returns the client
// certificate's end, zero while nothing is published.
func (r *Reconciler) publishAccess(ctx context.Context, cp *cpv1.EggoControlPlane, cluster *clusterv1.Cluster, ec *eggov1.EggoCluster) (time.Time, error) {
	stateNS := ec.Status.StateNamespace
	if stateNS == "" {
		return time.Time{}, nil // no Job has run yet
	}
	kc, err := r.published(ctx, ec, stateNS, eggov1.ClientKubeconfigSecretName(ec.Name, CAPIClient))
	if kc == nil || err != nil {
		return time.Time{}, err
	}
	ca, err := r.published(ctx, ec, stateNS, eggov1.CASecretName(ec.Name))
	if ca == nil || err != nil {
		return time.Time{}, err
	}
	value := kc.Data[eggov1.KubeconfigKey]
	notAfter, err := clientNotAfter(value)
	if err != nil {
		return time.Time{}, fmt.Errorf("the kubeconfig of client %s in %s/%s: %w", CAPIClient, stateNS, kc.Name, err)
	}
	if err := r.writeContractSecret(ctx, cp, cluster, kubeconfigName(cluster.Name), map[string][]byte{"value": value},
		map[string]string{NotAfterAnnotation: notAfter.UTC().Format(time.RFC3339)}); err != nil {
		return time.Time{}, err
	}
	return notAfter, r.writeContractSecret(ctx, cp, cluster, caName(cluster.Name),
		map[string][]byte{corev1.TLSCertKey: ca.Data[eggov1.CACertKey]}, nil)
}

// published reads a Secret the Jobs published for ec in the state
// namespace; nil when there is none, or when it is not ec's.
func (r *Reconciler) published(ctx context.Context, ec *eggov1.EggoCluster, ns, name string) (*corev1.Secret, error) {
	var s corev1.Secret
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &s)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if ns == ec.Namespace {
		if !ownedBy(&s, ec) {
			return nil, nil
		}
	} else if s.Labels[eggov1.LabelClusterNamespace] != ec.Namespace || s.Annotations[eggov1.AnnotationClusterUID] != string(ec.UID) {
		return nil, nil
	}
	return &s, nil
}

func ownedBy(o metav1.Object, ec *eggov1.EggoCluster) bool {
	for _, r := range o.GetOwnerReferences() {
		if r.UID == ec.UID {
			return true
		}
	}
	return false
}

// writeContractSecret creates or updates one of the contract's Secrets,
// controlled by the control plane (so it goes with it); one of that name
// the control plane does not control is left as it is, named.
func (r *Reconciler) writeContractSecret(ctx context.Context, cp *cpv1.EggoControlPlane, cluster *clusterv1.Cluster, name string, data map[string][]byte, annotations map[string]string) error {
	var cur corev1.Secret
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: cluster.Namespace, Name: name}, &cur)
	if apierrors.IsNotFound(err) {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: cluster.Namespace,
			Labels: map[string]string{clusterv1.ClusterNameLabel: cluster.Name}, Annotations: annotations},
			Type: clusterv1.ClusterSecretType, Data: data}
		if err := controllerutil.SetControllerReference(cp, s, r.Scheme); err != nil {
			return err
		}
		return r.Create(ctx, s)
	}
	if err != nil {
		return err
	}
	if !metav1.IsControlledBy(&cur, cp) {
		return fmt.Errorf("Secret %s/%s exists and is not this control plane's: not overwritten", cur.Namespace, name)
	}
	if maps.EqualFunc(cur.Data, data, bytes.Equal) && cur.Annotations[NotAfterAnnotation] == annotations[NotAfterAnnotation] {
		return nil
	}
	cur.Data = data
	for k, v := range annotations {
		if cur.Annotations == nil {
			cur.Annotations = map[string]string{}
		}
		cur.Annotations[k] = v
	}
	return r.Update(ctx, &cur)
}

// clientNotAfter is the end of the client certificate a kubeconfig holds.
func clientNotAfter(kubeconfig []byte) (time.Time, error) {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return time.Time{}, err
	}
	for _, u := range cfg.AuthInfos {
		block, _ := pem.Decode(u.ClientCertificateData)
		if block == nil {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return time.Time{}, err
		}
		return cert.NotAfter, nil
	}
	return time.Time{}, fmt.Errorf("no client certificate in it")
}

// renewalDue says whether the published client certificate is within
// renewBefore of its end, when a plan renews it.
func renewalDue(notAfter time.Time, k cpv1.KubeconfigSpec, now time.Time) bool {
	if notAfter.IsZero() {
		return false
	}
	return now.After(notAfter.Add(-capiClient(k).RenewBefore))
}

// requestRenewal asks the GitOps controller for a new plan (annotation
// eggo.io/plan-requested), in which eggo renews the client certificate:
// once per certificate (the request names its end), and never while a
// Job runs.
func (r *Reconciler) requestRenewal(ctx context.Context, ec *eggov1.EggoCluster, notAfter time.Time) error {
	want := "renew-" + notAfter.UTC().Format("20060102T150405Z")
	if ec.Annotations[eggov1.PlanRequestAnnotation] == want || ec.Status.ActiveJob != "" {
		return nil
	}
	patch := client.MergeFrom(ec.DeepCopy())
	if ec.Annotations == nil {
		ec.Annotations = map[string]string{}
	}
	ec.Annotations[eggov1.PlanRequestAnnotation] = want
	return r.Patch(ctx, ec, patch)
}
