cluster "demo" {
  kubernetes_version = "1.31.4"
  config_dir         = "/run/kubernetes" # ERROR: Invalid config_dir
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
