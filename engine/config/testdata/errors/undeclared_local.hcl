cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = local.master_ip # ERROR: Reference to undeclared local value
  roles   = ["master", "etcd"]
}
