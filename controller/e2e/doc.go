// Package e2e holds the GitOps mode's end-to-end test on testbed hosts: a
// management cluster deployed by the eggo CLI runs the controller from
// eggo's own image, and an EggoCluster deploys, grows and destroys a
// workload cluster on other hosts through Jobs (see
// gitops_testbed_test.go). It has no code of its own.
package e2e
