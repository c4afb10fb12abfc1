cluster "demo" {
  kubernetes_version = "1.31.4"
  extra_args = {
    kubelet = { "max-pods" = "50" }
    "kubelet" = { v = "2" } # ERROR: Duplicate key in extra_args
    etcd = {
      "quota-backend-bytes" = "8589934592"
      quota-backend-bytes   = "4294967296" # ERROR: Duplicate key in extra_args
    }
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
