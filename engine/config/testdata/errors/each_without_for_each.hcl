cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = each.value # ERROR: Reference to "each" in context without for_each
  roles   = ["master", "etcd"]
}
