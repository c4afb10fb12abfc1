cluster "demo" {
  kubernetes_version = "1.31.4"
}

cluster "other" { # ERROR: Duplicate cluster block
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
