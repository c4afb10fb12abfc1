cluster "demo" {
  kubernetes_version = "1.31.4"
}

locals {
  a = 1
}

locals {
  a = 2 # ERROR: Duplicate local value
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
