# Durations have an upper bound too: "8760000h" is a typo, not a plan.
cluster "demo" {
  kubernetes_version = "1.31.4"
  certificates {
    validity     = "876001h"  # ERROR: Invalid duration
    ca_validity  = "876001h"  # ERROR: Invalid duration
    renew_before = "9000000h" # ERROR: Invalid duration
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
  connection {
    timeout = "11m" # ERROR: Invalid duration
  }
}
