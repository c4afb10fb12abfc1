# A lock held by a dead eggo keeps everyone out for lock_ttl: at most 1h.
cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}

backend "etcd" {
  endpoints    = ["https://10.0.0.5:2379"]
  lock_ttl     = "24h" # ERROR: Invalid lock_ttl
  lock_timeout = "48h" # ERROR: Invalid lock_timeout
}
