# A conformance-shaped cluster (make conformance): a load balancer, three
# masters running etcd and two or more workers, on testbed hosts. The roles
# come from the names the testbed gives: lb* balances, m* are masters, w*
# workers. The package bundle is `make bundle`'s with the conformance test
# images added (containerd imports every archive under
# /var/lib/eggo/images), so the tests never pull.

variable "nodes" {
  type        = map(string)
  description = "node name => address: lb0, m0..m2, w0, w1, …"
}
variable "testbed_id" {
  type    = string
  default = ""
}
variable "ssh_user" {
  type    = string
  default = "root"
}
variable "ssh_port" {
  type    = number
  default = 22
}
variable "ssh_private_key_file" { type = string }
variable "ssh_known_hosts_file" { type = string }
variable "kubernetes_version" {
  type        = string
  default     = "1.36.5"
  description = "the cluster's Kubernetes; make conformance CONFORMANCE_VERSION=v1.37.2 passes it with that version's bundle and tests"
}
variable "registry_mirror" {
  type        = string
  default     = ""
  description = "a mirror of registry.k8s.io (make conformance serves the test images at the testbed's gateway): the tests that pull with imagePullPolicy Always need one"
}
variable "packages" {
  type        = string
  default     = "/var/cache/eggo/bundle/v1.36.5"
  description = "the offline bundle; make conformance passes its copy with the test images added"
}
variable "implementation" {
  type        = string
  default     = "binary"
  description = "how the control plane runs: binary (systemd services) or pod (static pods); make conformance IMPLEMENTATION=pod"
}
variable "etcd_implementation" {
  type        = string
  default     = "binary"
  description = "how etcd runs: binary (a systemd service) or pod (static pods; needs implementation = pod); make conformance ETCD_IMPLEMENTATION=pod"
}

locals {
  lbs     = { for name, addr in var.nodes : name => addr if substr(name, 0, 2) == "lb" }
  masters = { for name, addr in var.nodes : name => addr if substr(name, 0, 1) == "m" }
  workers = { for name, addr in var.nodes : name => addr if substr(name, 0, 1) == "w" }
}

cluster "conformance" {
  kubernetes_version  = var.kubernetes_version
  packages            = var.packages
  implementation      = var.implementation
  etcd_implementation = var.etcd_implementation
  labels              = { purpose = "conformance" }
  network {
    service_cidr = "10.32.0.0/16"
    pod_cidr     = "10.244.0.0/16"
  }
  # The testbed's hosts lack CAP_SYS_RESOURCE and share one cgroup
  # hierarchy (each kubelet gets its own root there) and this machine's
  # disk (so the kubelet's eviction thresholds are of what is left, not
  # shares of the whole disk, and it collects no images: its disk use is
  # the machine's); real machines need none of it.
  runtime {
    restrict_oom_score_adj = true
    cgroup_root_per_node   = true
    eviction_hard          = { "memory.available" = "100Mi", "nodefs.available" = "1Gi", "imagefs.available" = "1Gi", "nodefs.inodesFree" = "5%" }
    image_gc_high_percent  = 100
    registry_mirrors       = var.registry_mirror == "" ? {} : { "registry.k8s.io" = [var.registry_mirror] }
  }
  # The testbed's hosts have no resolver: CoreDNS answers the cluster's
  # names only.
  addons {
    coredns          = true
    coredns_upstream = []
  }
}

connection {
  user             = var.ssh_user
  port             = var.ssh_port
  private_key_file = var.ssh_private_key_file
  known_hosts_file = var.ssh_known_hosts_file
}

node "lb" {
  for_each = local.lbs
  address  = each.value
  roles    = ["loadbalance"]
}

node "master" {
  for_each = local.masters
  address  = each.value
  roles    = ["master", "etcd"]
}

node "worker" {
  for_each   = local.workers
  address    = each.value
  roles      = ["worker"]
  depends_on = [node.master]
}

output "kubeconfig" {
  value = "conformance.kubeconfig"
}
