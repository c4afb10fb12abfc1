# A highly available cluster: a load balancer, three masters running etcd,
# and workers from a map. Addresses are computed from one subnet.

variable "subnet" {
  type    = string
  default = "192.0.2.0/24"
}
variable "workers" {
  type    = number
  default = 3
}

variable "packages" {
  type        = string
  default     = "/var/cache/eggo/bundle/v1.36.5"
  description = "the offline bundle (make bundle, or your own: website/bundle.md)"
}

locals {
  lb_address = cidrhost(var.subnet, 10)
}

cluster "prod" {
  kubernetes_version = "1.36.5"
  packages           = var.packages
  api_endpoint       = "${local.lb_address}:6443"
  labels             = { location = "xa", team = "platform" }
  certificates {
    validity     = "8760h"
    renew_before = "720h"
    extra_sans   = ["k8s.example.internal"]
  }
}

connection {
  user             = "ops"
  sudo             = true
  private_key_file = "~/.ssh/id_ed25519"
  bastion {
    host = "jump.example.internal"
    user = "ops"
  }
}

node "lb" {
  address = local.lb_address
  roles   = ["loadbalance"]
}

node "master" {
  count   = 3
  address = cidrhost(var.subnet, 11 + count.index)
  roles   = ["master", "etcd"]
}

node "worker" {
  for_each   = { for i in range(var.workers) : format("worker-%d", i) => cidrhost(var.subnet, 21 + i) }
  address    = each.value
  roles      = ["worker"]
  depends_on = [node.master]
  connection {
    user = "deploy"
  }
}

output "workers" {
  value = join(",", keys(node.worker))
}
