cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}

hook "prep" {
  on     = null # ERROR: Missing required argument
  source = null # ERROR: Missing required argument
}

backend "etcd" {
  endpoints = null # ERROR: Missing required argument
}
