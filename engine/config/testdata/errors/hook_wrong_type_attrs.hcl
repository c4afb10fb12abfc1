cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}

hook "prep" {
  on     = ["pre-join"]
  source = "main.hcl"
  count  = 3 # ERROR: Argument not valid for a shell hook
}

hook "bash" {
  on     = ["pre-join"]
  source = "main.hcl"
  type   = "bash" # ERROR: Invalid hook type
}

hook "check" {
  on = ["post-join"]
  web {
    url = "http://127.0.0.1/"
  }
  source = "main.hcl" # ERROR: Argument not valid for a web hook
  scope  = "everywhere" # ERROR: Invalid hook scope
}
