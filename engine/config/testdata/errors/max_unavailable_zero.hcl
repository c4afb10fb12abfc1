cluster "demo" {
  kubernetes_version = "1.31.4"
  max_unavailable    = 0 # ERROR: Invalid max_unavailable
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
