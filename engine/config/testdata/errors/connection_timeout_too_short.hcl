cluster "demo" {
  kubernetes_version = "1.31.4"
}

connection {
  timeout = "1ns" # ERROR: Invalid duration
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
