cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}

hook "canary" {
  on = ["post-deploy"]
  web {
    url       = "http://127.0.0.1/stats"
    json_path = "{$.age}"
  }
  success_condition = "asInt(result) >= " # ERROR: Invalid condition
  failure_condition = "asnt(result) > 3"  # ERROR: Invalid condition
}
