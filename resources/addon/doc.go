// Package addon is the addon kind: Kubernetes objects eggo applies once
// the cluster runs (the built-in CoreDNS and the user's manifests), through
// kubectl on a master, with drift and prune. It is the one family that
// builds on another: it applies through kube's kubectl on a master and
// waits for workloads with kube's health timeout (declared in
// TestImportBoundaries).
package addon
