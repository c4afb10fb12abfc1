cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = cidrhost("10.0.0.0/30", 9) # ERROR: Error in function call
  roles   = ["master", "etcd"]
}
