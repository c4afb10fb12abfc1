cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}

hook "prep" {
  on      = ["pre-join"]
  source  = "main.hcl"
  timeout = "25h" # ERROR: Invalid duration
  grace   = "2h"  # ERROR: Invalid duration
  policy  = "retry"
  backoff = "6m" # ERROR: Invalid duration
}

hook "web" {
  on            = ["post-deploy"]
  type          = "web"
  count         = 2
  interval      = "48h"  # ERROR: Invalid duration
  initial_delay = "100h" # ERROR: Invalid duration
  timeout       = "200h" # ERROR: Invalid duration
  web {
    url     = "http://127.0.0.1/healthz"
    timeout = "2h" # ERROR: Invalid duration
  }
}

hook "prom" {
  on   = ["post-deploy"]
  type = "prometheus"
  prometheus {
    address = "http://127.0.0.1:9090"
    query   = "up"
    timeout = "1000h" # ERROR: Invalid duration
  }
}
