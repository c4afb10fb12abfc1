variable "version" {
  type    = string
  default = "1.31.4"
}

variable "masters" {
  type    = number
  default = 3
}

variable "pools" {
  type = map(object({
    arch  = optional(string, "amd64")
    count = number
  }))
  default = {
    general = { count = 2 }
    arm     = { count = 1, arch = "arm64" }
  }
}

locals {
  subnet = "10.88.0.0/16"
  workers = merge([
    for pool, spec in var.pools : {
      for i in range(spec.count) : "${pool}-${i}" => {
        arch    = spec.arch
        address = cidrhost(cidrsubnet(local.subnet, 8, 1 + index(keys(var.pools), pool)), 10 + i)
      }
    }
  ]...)
}

cluster "pools" {
  kubernetes_version = var.version
  api_endpoint       = "${node.master[0].address}:6443"
  network {
    dns_domain = "pools.local"
  }
}

node "master" {
  count   = var.masters
  address = cidrhost(cidrsubnet(local.subnet, 8, 0), 10 + count.index)
  roles   = ["master", "etcd"]
}

node "worker" {
  for_each = local.workers
  address  = each.value.address
  arch     = each.value.arch
  roles    = ["worker"]
  labels   = { pool = split("-", each.key)[0] }
}

output "workers" {
  value = { for k, w in node.worker : k => w.address }
}
