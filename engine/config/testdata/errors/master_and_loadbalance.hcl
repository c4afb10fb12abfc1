cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m" {
  count   = 3
  address = cidrhost("10.0.0.0/24", 10 + count.index)
  roles = [
    "master",
    "etcd",
    "loadbalance", # ERROR: Node is both master and load balancer
  ]
}
