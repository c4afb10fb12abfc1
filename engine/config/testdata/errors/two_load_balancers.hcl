cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "lb0" {
  address = "10.0.0.5"
  roles   = ["loadbalance"]
}

node "lb1" {
  address = "10.0.0.6"
  roles   = ["loadbalance"] # ERROR: Several load balancers and no api_endpoint
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
