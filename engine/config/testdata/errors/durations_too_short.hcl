cluster "demo" {
  kubernetes_version = "1.31.4"
  certificates {
    validity     = "30m" # ERROR: Invalid duration
    ca_validity  = "59m" # ERROR: Invalid duration
    renew_before = "1s"  # ERROR: Invalid duration
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
  connection {
    timeout = "999ms" # ERROR: Invalid duration
  }
}
