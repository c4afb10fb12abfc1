cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "a" {
  address    = "10.0.0.1"
  roles      = ["master", "etcd"]
  depends_on = [node.b] # ERROR: Reference cycle
}

node "b" {
  address    = "10.0.0.2"
  roles      = ["worker"]
  depends_on = [node.a]
}
