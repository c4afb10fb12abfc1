cluster "demo" {
  kubernetes_version = "1.31.4"
  network {
    service_cidr = "fd00:10:96::/108" # ERROR: IPv6 service range not supported
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
