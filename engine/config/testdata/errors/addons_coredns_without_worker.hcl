cluster "demo" {
  kubernetes_version = "1.31.4"
  addons {
    coredns = true # ERROR: CoreDNS without workers
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
