cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "e0" {
  address = "10.0.0.1"
  roles   = ["etcd"]
}

node "w" {
  for_each = { w0 = "10.0.0.10", w1 = "10.0.0.11" }
  address  = each.value
  roles    = ["worker"] # ERROR: No master node
}
