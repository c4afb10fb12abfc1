// Package kube holds the kinds that run Kubernetes on the hosts: service
// (every component as a systemd unit: etcd, kube-apiserver,
// controller-manager, scheduler, the load balancer, containerd, kubelet,
// kube-proxy and the pod routes), etcd_member (membership of the etcd
// cluster) and k8s_node (a worker's Node object), plus the pod subnets each
// worker keeps (Service implements resources.Recaller). It imports the
// resources core and libraries only.
package kube
