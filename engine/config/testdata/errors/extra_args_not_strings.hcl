cluster "demo" {
  kubernetes_version = "1.31.4"
  extra_args = {
    kubelet        = { "node-labels" = ["a=b", "c=d"] } # ERROR: Invalid flag value in extra_args
    kube-apiserver = "v=2" # ERROR: Invalid extra_args
    kube-proxy     = { v = null } # ERROR: Invalid flag value in extra_args
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
