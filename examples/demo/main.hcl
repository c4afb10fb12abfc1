# The demo cluster: a Kubernetes cluster on testbed hosts (`make demo` boots
# them and writes testbed.eggovars beside this file). The first node (sorted)
# is the master and runs etcd; the others are workers. The package bundle is
# the one `make bundle` builds.

variable "nodes" {
  type        = map(string)
  description = "node name => address; the first name (sorted) is the master"
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
  description = "the cluster's Kubernetes: one minor up at a time, with that version's bundle as packages"
}
variable "packages" {
  type        = string
  default     = "/var/cache/eggo/bundle/v1.36.5"
  description = "the offline bundle (make bundle)"
}

locals {
  names  = sort(keys(var.nodes))
  master = local.names[0]
}

cluster "demo" {
  kubernetes_version = var.kubernetes_version
  packages           = var.packages
  labels             = { purpose = "demo" }
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
  }
  # Cluster DNS from the bundle's CoreDNS image, at 10.32.0.10. The testbed's
  # hosts have no resolver, so CoreDNS answers the cluster's names only.
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

node "master" {
  name    = local.master
  address = var.nodes[local.master]
  roles   = ["master", "etcd"]
}

node "worker" {
  for_each = { for name, addr in var.nodes : name => addr if name != local.master }
  address  = each.value
  roles    = ["worker"]
}

output "master_address" {
  value = node.master.address
}

output "kubeconfig" {
  value = "demo.kubeconfig"
}
