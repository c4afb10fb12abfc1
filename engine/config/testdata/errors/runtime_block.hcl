cluster "demo" {
  kubernetes_version = "1.31.4"
  runtime {
    restrict_oom_score_adj = "maybe" # ERROR: Incorrect attribute value type
    systemd_cgroup         = true # ERROR: Unsupported argument
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
