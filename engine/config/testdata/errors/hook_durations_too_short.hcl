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
  timeout = "500ms" # ERROR: Invalid duration
  grace   = "1us"   # ERROR: Invalid duration
}

hook "web" {
  on       = ["post-deploy"]
  type     = "web"
  count    = 2
  interval = "10ns" # ERROR: Invalid duration
  timeout  = "1us"  # ERROR: Invalid duration
  web {
    url     = "http://127.0.0.1/healthz"
    timeout = "100us" # ERROR: Invalid duration
  }
}

hook "prom" {
  on   = ["post-deploy"]
  type = "prometheus"
  prometheus {
    address = "http://127.0.0.1:9090"
    query   = "up"
    timeout = "1ns" # ERROR: Invalid duration
  }
}
