cluster "demo" { # ERROR: No etcd node
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master"]
}

node "w0" {
  address = "10.0.0.2"
  roles   = ["worker"]
}
