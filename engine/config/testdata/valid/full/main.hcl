variable "region" {
  type    = string
  default = "xa"
}

variable "workers" {
  type = map(string)
  default = {
    w0 = "10.77.0.21"
    w1 = "10.77.0.22"
  }
}

variable "ssh_user" {
  default   = "ops"
  sensitive = true
}

locals {
  subnet  = "10.77.0.0/24"
  lb_addr = cidrhost(local.subnet, 10)
}

locals {
  common_labels = merge({ location = var.region }, { managed_by = "eggo" })
}

cluster "demo" {
  kubernetes_version = "1.31.4"
  packages           = "./packages"
  api_endpoint       = "${local.lb_addr}:6443"
  labels             = local.common_labels
  annotations        = { owner = "team-k8s" }

  network {
    service_cidr = cidrsubnet("10.32.0.0/12", 4, 0)
    pod_cidr     = "10.244.0.0/16"
  }

  certificates {
    validity   = "4380h"
    extra_sans = [local.lb_addr, "api.example.com"]
    client "capi" {
      groups       = ["system:masters"]
      validity     = "24h"
      renew_before = "8h"
    }
  }
}

connection {
  user             = "root"
  private_key_file = "keys/id_ed25519"
  port             = 2222
  bastion {
    host = "jump.example.com"
    user = "jump"
  }
}

node "lb" {
  address = local.lb_addr
  roles   = ["loadbalance"]
}

node "master" {
  count   = 3
  address = cidrhost(local.subnet, 11 + count.index)
  roles   = ["master", "etcd"]
  labels  = { zone = format("z%d", count.index % 2) }
}

node "worker" {
  for_each   = var.workers
  address    = each.value
  roles      = ["worker"]
  arch       = "arm64"
  depends_on = [node.master]
  connection {
    user = "admin"
    sudo = true
  }
}

output "endpoint" {
  value       = cluster.api_endpoint
  description = "Where the API server answers."
}

output "worker_addresses" {
  value = [for w in node.worker : w.address]
}
