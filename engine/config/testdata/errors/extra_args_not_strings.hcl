cluster "demo" {
  kubernetes_version = "1.31.4"
  extra_args = { # ERROR: Incorrect attribute value type
    kubelet = { "node-labels" = ["a=b", "c=d"] }
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
