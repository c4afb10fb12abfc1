cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = cidr_host("10.0.0.0/24", 9) # ERROR: Call to unknown function
  roles   = ["master", "etcd"]
}
