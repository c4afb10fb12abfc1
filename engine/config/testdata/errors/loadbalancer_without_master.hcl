cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "lb" {
  address = "10.0.0.5"
  roles   = ["loadbalance"] # ERROR: No master node
}
