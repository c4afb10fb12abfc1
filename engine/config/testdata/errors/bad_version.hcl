cluster "demo" {
  kubernetes_version = "latest" # ERROR: Invalid kubernetes_version
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
