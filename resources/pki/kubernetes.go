package pki

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"
)

// Host is a machine that appears in certificates: its node name and the
// address it is reached at (an IP or a DNS name).
type Host struct {
	Name    string
	Address string
}

// DefaultDNSDomain is the cluster domain when none is configured.
const DefaultDNSDomain = "cluster.local"

// Well-known names Kubernetes' default RBAC binds to.
const (
	GroupMasters   = "system:masters" // bound to cluster-admin
	GroupNodes     = "system:nodes"
	nodeUserPrefix = "system:node:"
)

// ServiceIP is the first host address of the service CIDR, the ClusterIP
// kube-apiserver gives the "kubernetes" service (10.32.0.1 for
// 10.32.0.0/16).
func ServiceIP(serviceCIDR string) (netip.Addr, error) {
	prefix, err := netip.ParsePrefix(strings.TrimSpace(serviceCIDR))
	if err != nil {
		return netip.Addr{}, fmt.Errorf("service_cidr %q is not a CIDR such as 10.32.0.0/16", serviceCIDR)
	}
	prefix = prefix.Masked()
	ip := prefix.Addr().Next()
	if !ip.IsValid() || !prefix.Contains(ip) {
		return netip.Addr{}, fmt.Errorf("service_cidr %q has no room for a service IP", serviceCIDR)
	}
	return ip, nil
}

// APIServerSpec is kube-apiserver's serving certificate: the in-cluster
// names of the "kubernetes" service, the service IP, every master's name and
// address, the API endpoint's host (a "host:port" is accepted) and extra
// SANs. dnsDomain defaults to DefaultDNSDomain.
func APIServerSpec(serviceCIDR, dnsDomain string, masters []Host, endpointHost string, extra []string, validity time.Duration) (CertSpec, error) {
	ip, err := ServiceIP(serviceCIDR)
	if err != nil {
		return CertSpec{}, fmt.Errorf("apiserver certificate: %w", err)
	}
	if dnsDomain == "" {
		dnsDomain = DefaultDNSDomain
	}
	s := CertSpec{CommonName: "kube-apiserver", Server: true, Validity: validity}
	s.DNSNames = []string{"kubernetes", "kubernetes.default", "kubernetes.default.svc",
		"kubernetes.default.svc." + strings.TrimSuffix(dnsDomain, ".")}
	s.IPs = []string{ip.String()}
	for _, m := range masters {
		s.AddSANs(m.Name, m.Address)
	}
	// Components on a master reach their own apiserver on loopback.
	s.AddSANs("localhost", "127.0.0.1")
	s.AddSANs(hostOnly(endpointHost))
	s.AddSANs(extra...)
	return s.Normalize()
}

// hostOnly drops a port from "host:port" or "[v6]:port".
func hostOnly(endpoint string) string {
	if h, _, err := net.SplitHostPort(endpoint); err == nil {
		return h
	}
	return endpoint
}

// APIServerKubeletClientSpec is the client certificate kube-apiserver
// presents to kubelets (logs, exec); in system:masters as kubeadm does.
func APIServerKubeletClientSpec(validity time.Duration) CertSpec {
	return clientSpec("kube-apiserver-kubelet-client", validity, GroupMasters)
}

// APIServerEtcdClientSpec is the client certificate kube-apiserver presents
// to etcd.
func APIServerEtcdClientSpec(validity time.Duration) CertSpec {
	return clientSpec("kube-apiserver-etcd-client", validity)
}

// FrontProxyClientSpec is the aggregation-layer client certificate. Issue it
// from the front-proxy CA, not the cluster CA: kube-apiserver trusts it
// through --requestheader-client-ca-file.
func FrontProxyClientSpec(validity time.Duration) CertSpec {
	return clientSpec("front-proxy-client", validity)
}

// EtcdServerSpec is an etcd member's client-facing certificate. It has both
// usages because etcd uses it to dial itself (the grpc gateway). Loopback
// names are included for local health checks, ::1 too as kubeadm does.
func EtcdServerSpec(member Host, validity time.Duration) (CertSpec, error) {
	return etcdSpec(member, validity, "etcd server")
}

// EtcdPeerSpec is an etcd member's certificate for member-to-member traffic,
// where each side is both server and client.
func EtcdPeerSpec(member Host, validity time.Duration) (CertSpec, error) {
	return etcdSpec(member, validity, "etcd peer")
}

func etcdSpec(member Host, validity time.Duration, what string) (CertSpec, error) {
	s := CertSpec{CommonName: member.Name, Server: true, Client: true, Validity: validity}
	s.AddSANs(member.Name, member.Address, "localhost", "127.0.0.1", "::1")
	n, err := s.Normalize()
	if err != nil {
		return CertSpec{}, fmt.Errorf("%s certificate for %q: %w", what, member.Name, err)
	}
	return n, nil
}

// KubeletSpec is a node's kubelet certificate: a client of the apiserver as
// system:node:<name> (the Node authorizer keys on that name) and the server
// the apiserver reaches for logs and exec.
func KubeletSpec(node Host, validity time.Duration) (CertSpec, error) {
	if strings.TrimSpace(node.Name) == "" {
		return CertSpec{}, fmt.Errorf("kubelet certificate for node at %q: node name is empty", node.Address)
	}
	s := CertSpec{
		CommonName:   nodeUserPrefix + node.Name,
		Organization: []string{GroupNodes},
		Server:       true,
		Client:       true,
		Validity:     validity,
	}
	s.AddSANs(node.Name, node.Address)
	n, err := s.Normalize()
	if err != nil {
		return CertSpec{}, fmt.Errorf("kubelet certificate for %q: %w", node.Name, err)
	}
	return n, nil
}

// AdminSpec is the cluster administrator's client certificate.
func AdminSpec(validity time.Duration) CertSpec {
	return clientSpec("kubernetes-admin", validity, GroupMasters)
}

// ControllerManagerSpec is kube-controller-manager's client certificate.
func ControllerManagerSpec(validity time.Duration) CertSpec {
	return clientSpec("system:kube-controller-manager", validity)
}

// SchedulerSpec is kube-scheduler's client certificate.
func SchedulerSpec(validity time.Duration) CertSpec {
	return clientSpec("system:kube-scheduler", validity)
}

// KubeProxySpec is kube-proxy's client certificate; the default
// system:node-proxier binding names this user.
func KubeProxySpec(validity time.Duration) CertSpec {
	return clientSpec("system:kube-proxy", validity)
}

// FlannelUser is flanneld's user name; eggo's RBAC (the built-in
// addon.flannel) grants it what flannel's Kubernetes subnet manager uses.
const FlannelUser = "eggo:flannel"

// FlannelSpec is flanneld's client certificate, one for every worker like
// kube-proxy's: it reads Nodes and patches their status.
func FlannelSpec(validity time.Duration) CertSpec {
	return clientSpec(FlannelUser, validity)
}

func clientSpec(cn string, validity time.Duration, groups ...string) CertSpec {
	return CertSpec{CommonName: cn, Organization: groups, Client: true, Validity: validity}
}
