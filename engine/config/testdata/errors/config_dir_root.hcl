# eggo writes config_dir/COMPONENT and removes it when a node leaves: the
# root, a system directory or one emptied at boot cannot be config_dir.
cluster "demo" {
  kubernetes_version = "1.31.4"
  config_dir         = "/" # ERROR: Invalid config_dir
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
