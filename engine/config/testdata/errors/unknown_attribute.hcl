cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
  colour  = "blue" # ERROR: Unsupported argument
}
