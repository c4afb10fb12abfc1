cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}

hook "everywhere" {
  on     = ["pre-join"]
  source = "main.hcl"
  run_on = "operator" # ERROR: run_on on a node hook
}

hook "somewhere" {
  on     = ["pre-deploy"]
  scope  = "cluster"
  source = "main.hcl"
  run_on = "laptop" # ERROR: Invalid run_on
}

hook "check" {
  on     = ["post-deploy"]
  scope  = "cluster"
  run_on = "operator" # ERROR: Argument not valid for a web hook
  web {
    url       = "http://127.0.0.1/stats"
    json_path = "{$.age}"
  }
}
