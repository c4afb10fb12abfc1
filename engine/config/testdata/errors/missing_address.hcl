cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" { # ERROR: Missing required argument
  roles = ["master", "etcd"]
}
