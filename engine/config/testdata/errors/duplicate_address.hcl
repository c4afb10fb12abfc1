cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}

node "workers" {
  for_each = toset(["w0", "w1"])
  address  = each.key == "w1" ? "10.0.0.1" : "10.0.0.9" # ERROR: Duplicate node address
  roles    = ["worker"]
}
