cluster "demo" {
  kubernetes_version = "1.31.4"
  runtime {
    restrict_oom_score_adj = true
  }
  runtime { # ERROR: Duplicate runtime block
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
