package kube

import (
	"path"

	"github.com/eggo-project/eggo/resources"
)

// The bundle's programs that are releases of their own, not Kubernetes':
// the distribution's etcd-server and containerd are the same in the
// bundles of 1.31.3 and 1.31.4.
const (
	etcdProgram       = "usr/local/bin/etcd"
	containerdProgram = "usr/local/bin/containerd"
)

// programVersion is the version a service's restart follows when its
// program is not Kubernetes': the program's own digest in the bundle, so
// a Kubernetes upgrade restarts it only when the program did change.
// Restarting every etcd member for a Kubernetes upgrade bought nothing and
// cost the apiservers failed requests: one in flight on a member that
// stops fails with "rpc error: code = Unknown desc = malformed header:
// missing HTTP content-type" (etcd 3.4 over TLS drops its gRPC streams at
// once), one in flight while the leader changes with "etcdserver: leader
// changed", and kube-apiserver passes both on. A containerd restart is
// gentler (containers outlive it) but just as pointless. Without a bundle
// the programs are the operator's, and the Kubernetes version is all eggo
// knows of them.
func programVersion(c *resources.Cluster, n resources.Node, program string) (string, error) {
	if c.Packages == "" {
		return c.KubernetesVersion, nil
	}
	sum, err := resources.BundleFileSHA256(c, n, program)
	if err != nil {
		return "", err
	}
	return path.Base(program) + " sha256:" + sum[:16], nil
}
