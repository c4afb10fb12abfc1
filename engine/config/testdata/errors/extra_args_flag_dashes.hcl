cluster "demo" {
  kubernetes_version = "1.31.4"
  extra_args = {
    kube-apiserver = {
      "audit-log-maxage" = 30
      "--v"              = 2 # ERROR: Invalid flag name in extra_args
      "feature-gates=A"  = true # ERROR: Invalid flag name in extra_args
    }
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
