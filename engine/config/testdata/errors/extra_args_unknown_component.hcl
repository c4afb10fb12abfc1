cluster "demo" {
  kubernetes_version = "1.31.4"
  extra_args = {
    kubelet        = { "max-pods" = "50" }
    kube-apiservr  = { v = "2" } # ERROR: Unknown component in extra_args
    "kube-proxy"   = {}
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
