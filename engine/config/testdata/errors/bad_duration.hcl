cluster "demo" {
  kubernetes_version = "1.31.4"
  certificates {
    validity = "1 year" # ERROR: Invalid duration
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
