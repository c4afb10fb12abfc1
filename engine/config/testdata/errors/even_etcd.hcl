cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}

node "m1" {
  address = "10.0.0.2"
  roles = [
    "master",
    "etcd", # WARNING: Even number of etcd nodes
  ]
}
