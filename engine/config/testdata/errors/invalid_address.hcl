cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.300" # ERROR: Invalid node address
  roles   = ["master", "etcd"]
}
