package kube

import (
	"path"
	"strings"

	"github.com/eggo-project/eggo/resources"
)

// The bundle's programs that are releases of their own, not Kubernetes':
// the distribution's etcd-server and containerd are the same in the
// bundles of 1.31.3 and 1.31.4.
const (
	etcdProgram       = "usr/local/bin/etcd"
	containerdProgram = "usr/local/bin/containerd"
)

// programModules are the Go modules whose version is a program's release
// (resources.BundleProgramRelease): etcd's server reports its API module's
// version.
var programModules = map[string]string{
	etcdProgram:                "go.etcd.io/etcd/api/v3",
	resources.EtcdImageArchive: "go.etcd.io/etcd/api/v3",
	containerdProgram:          "github.com/containerd/containerd/v2",
	flannelProgram:             "github.com/flannel-io/flannel",
}

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
//
// The program's release goes between its name and its digest when the
// bundle says it ("etcd 3.6.8 sha256:…"): a plan shows how far a program
// moves, and etcd's one-minor-at-a-time rule reads it (etcd_release.go).
// The digest alone decides whether the program changed (sameProgram), so a
// record made before the release was written down keeps its program
// running.
func programVersion(c *resources.Cluster, n resources.Node, program string) (string, error) {
	if c.Packages == "" {
		return c.KubernetesVersion, nil
	}
	sum, err := resources.BundleFileSHA256(c, n, program)
	if err != nil {
		return "", err
	}
	name := path.Base(program)
	release := resources.BundleProgramRelease(c, n, program, programModules[program])
	if release == "" && program == resources.EtcdImageArchive {
		// An archive is no Go program; it holds the image the pod runs,
		// whose tag is the release ("registry.k8s.io/etcd:3.6.8-0").
		release = imageRelease(c.Minor().Etcd)
	}
	if release != "" {
		name += " " + release
	}
	return name + " sha256:" + sum[:16], nil
}

// programDigest is the "sha256:…" of a program's version ("" for a
// Kubernetes release).
func programDigest(version string) string {
	// Without strings.Fields: every service's plan asks, and a no-op's
	// allocates next to nothing.
	i := strings.LastIndexByte(version, ' ')
	if i < 0 || !strings.HasPrefix(version[i+1:], "sha256:") {
		return ""
	}
	return version[i+1:]
}

// programRelease is the release a program's version names ("3.6.8" of
// "etcd 3.6.8 sha256:…"), "" when it names none.
func programRelease(version string) string {
	if fields := strings.Fields(version); len(fields) == 3 && programDigest(version) != "" {
		return fields[1]
	}
	return ""
}

// sameProgram says whether two versions of a service run the same program:
// the same digest, whatever release either names; else the same text.
func sameProgram(a, b string) bool {
	if da, db := programDigest(a), programDigest(b); da != "" && db != "" {
		return da == db
	}
	return a == b
}

// imageRelease is the X.Y.Z an image's tag starts with ("3.6.8" of
// "registry.k8s.io/etcd:3.6.8-0"), "" for none.
func imageRelease(image string) string {
	i := strings.LastIndex(image, ":")
	if i < 0 || strings.Contains(image[i:], "/") {
		return ""
	}
	return resources.SourceRelease("image@" + image[i+1:])
}
