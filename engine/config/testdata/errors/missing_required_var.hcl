cluster "demo" {
  kubernetes_version = "1.31.4"
}

variable "address" { # ERROR: No value for required variable
  type = string
}

node "m0" {
  address = var.address
  roles   = ["master", "etcd"]
}
