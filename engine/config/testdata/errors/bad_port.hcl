cluster "demo" {
  kubernetes_version = "1.31.4"
}

connection {
  port = 70000 # ERROR: Invalid port
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
