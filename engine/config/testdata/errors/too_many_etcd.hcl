cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m" {
  count   = 9
  address = cidrhost("10.0.0.0/24", 10 + count.index)
  roles   = ["master", "etcd"] # WARNING: More than 7 etcd nodes
}
