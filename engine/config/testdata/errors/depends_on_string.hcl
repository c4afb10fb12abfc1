cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}

node "w0" {
  address    = "10.0.0.2"
  roles      = ["worker"]
  depends_on = ["node.m0"] # ERROR: Invalid depends_on
}
