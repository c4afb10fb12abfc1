cluster "mini" {
  kubernetes_version = "1.31.4"
}

node "solo" {
  address = "127.0.0.1"
  roles   = ["master", "etcd", "worker"]
  connection {
    type = "local"
  }
}
