# The demo cluster: hosts come from the testbed (`make demo` writes
# testbed.eggovars beside this file). eggo checks every host, copies the
# package bundle onto it, and records exactly what it created.

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

locals {
  names  = sort(keys(var.nodes))
  master = local.names[0]
}

cluster "demo" {
  kubernetes_version = "1.31.4"
  packages           = "./packages"
  labels             = { purpose = "demo" }
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
  for_each   = { for name, addr in var.nodes : name => addr if name != local.master }
  address    = each.value
  roles      = ["worker"]
  depends_on = [node.master]
}

output "master_address" {
  value = node.master.address
}
