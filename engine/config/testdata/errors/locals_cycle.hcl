cluster "demo" {
  kubernetes_version = "1.31.4"
}

locals {
  first  = "${local.second}-x" # ERROR: Reference cycle
  second = upper(local.third)
  third  = local.first
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
