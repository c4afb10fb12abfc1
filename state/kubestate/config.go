// Package kubestate stores eggo's state in a Kubernetes cluster: Secrets of
// type eggo.io/state in one namespace, every write conditioned on the
// resourceVersion it was read at (so no run can overwrite a state it did
// not see), and a lock held through a coordination.k8s.io Lease that its
// holder renews, so it frees by itself when its holder dies.
//
// It stores bytes; package state owns their encoding (secrets inside are
// sealed before they get here). Every method's ctx bounds its requests:
// give it a deadline.
package kubestate

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Config says where the state lives and how to reach the cluster.
type Config struct {
	// Kubeconfig is the kubeconfig file; "" means the pod's service
	// account when running in a pod (KUBERNETES_SERVICE_HOST set, no
	// Context), else $KUBECONFIG, else ~/.kube/config.
	Kubeconfig string
	Context    string // "" = the kubeconfig's current context
	// Namespace holds the Secrets and the Lease; "" = the context's
	// namespace (in a pod: the pod's own), else "default".
	Namespace string
	Cluster   string // eggo's cluster name: a DNS label, part of every name
	// LockTTL is the Lease's duration (whole seconds, rounded up): how long
	// a lock outlives a holder that died. Default 15s.
	LockTTL        time.Duration
	RequestTimeout time.Duration // one API request; default 30s
	// ChunkSize is the most state bytes one Secret holds (default 768 KiB,
	// well under the 1 MiB an object may take in etcd); tests lower it.
	ChunkSize int
}

// Defaults.
const (
	DefaultLockTTL        = 15 * time.Second
	DefaultRequestTimeout = 30 * time.Second
	DefaultChunkSize      = 768 << 10
)

func (c Config) withDefaults() Config {
	if c.LockTTL <= 0 {
		c.LockTTL = DefaultLockTTL
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.ChunkSize <= 0 {
		c.ChunkSize = DefaultChunkSize
	}
	return c
}

// ValidateCluster says why name cannot name a cluster's objects, or "".
// The names below put it in Secret and Lease names and in a label value:
// a DNS label fits all three.
func ValidateCluster(name string) string {
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return fmt.Sprintf("the cluster name %q must be a DNS label to name Kubernetes objects: %s", name, strings.Join(errs, "; "))
	}
	return ""
}

// ValidateNamespace says why ns cannot be a namespace, or "".
func ValidateNamespace(ns string) string {
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return fmt.Sprintf("namespace %q is not a valid namespace name: %s", ns, strings.Join(errs, "; "))
	}
	return ""
}

func (c Config) validate() error {
	if why := ValidateCluster(c.Cluster); why != "" {
		return fmt.Errorf("kubernetes backend: %s", why)
	}
	if c.Namespace != "" {
		if why := ValidateNamespace(c.Namespace); why != "" {
			return fmt.Errorf("kubernetes backend: %s", why)
		}
	}
	return nil
}

// leaseSeconds is LockTTL in whole seconds, rounded up, as a Lease counts.
func (c Config) leaseSeconds() int32 {
	return int32((c.LockTTL + time.Second - 1) / time.Second)
}
