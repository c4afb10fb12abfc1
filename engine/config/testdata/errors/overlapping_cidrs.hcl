cluster "demo" {
  kubernetes_version = "1.31.4"
  network {
    service_cidr = "10.32.0.0/16"
    pod_cidr     = "10.0.0.0/8" # ERROR: overlap
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
