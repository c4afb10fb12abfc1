// Package pki is eggo's certificate library for a Kubernetes cluster's PKI:
// certificate authorities, leaf certificates, the service-account key pair
// and kubeconfigs. It is pure standard library and knows nothing of eggo's
// state, graph or hosts: a resource kind calls it, stores the PEM strings it
// returns (private keys are secrets) and writes them to hosts.
//
// Every function takes "now" explicitly so plans are reproducible and tests
// can move the clock. Keys are ECDSA P-256: every Kubernetes component and
// etcd accept it, and it is about a hundred times faster to generate than
// RSA, which matters when a cluster needs several certificates per node. The
// service-account signing key is the exception (see NewServiceAccountKey).
package pki
