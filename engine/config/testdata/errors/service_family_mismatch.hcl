cluster "demo" {
  kubernetes_version = "1.31.4"
  network {
    service_cidr = "fd00:10:96::/108" # ERROR: Service range and masters of different IP families
    pod_cidr     = "fd00:10:244::/56"
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
