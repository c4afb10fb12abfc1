// Package kube holds the kinds that run Kubernetes on the hosts: service
// (every component as a systemd unit: etcd, kube-apiserver,
// controller-manager, scheduler, the load balancer, containerd, kubelet,
// kube-proxy and flanneld, the pod network), etcd_member (membership of the
// etcd cluster) and k8s_node (a master's or worker's Node object with its labels,
// taint and podCIDR), plus the pod subnets each Node keeps (K8sNode implements
// resources.Recaller). It imports the resources core, pki and libraries.
package kube
