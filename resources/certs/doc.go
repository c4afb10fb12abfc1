// Package certs holds the kinds of a cluster's PKI: pki (the CAs and the
// service-account key pair), cert (leaf certificates, renewed before they
// expire) and kubeconfig (the operator's admin kubeconfig). They are built
// over the pki library and never touch a host. It imports the resources
// core and resources/pki only.
package certs
