# A config_dir holding shell syntax (a separator, a substitution and a
# space) is refused here, at its line, before any command is built with it.
cluster "demo" {
  kubernetes_version = "1.31.4"
  config_dir         = "/etc/k8s;reboot $(touch x)" # ERROR: Invalid config_dir
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
