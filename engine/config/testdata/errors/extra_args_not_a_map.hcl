cluster "demo" {
  kubernetes_version = "1.31.4"
  extra_args         = ["kubelet", "--v=2"] # ERROR: Invalid extra_args
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
