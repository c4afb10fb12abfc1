cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "a" {
  name    = "m0"
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}

node "b" {
  name    = "m0" # ERROR: Duplicate node name
  address = "10.0.0.2"
  roles   = ["worker"]
}
