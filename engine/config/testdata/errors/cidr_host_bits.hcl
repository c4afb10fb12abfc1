cluster "demo" {
  kubernetes_version = "1.31.4"
  network {
    pod_cidr = "10.244.1.0/16" # ERROR: Invalid CIDR
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
