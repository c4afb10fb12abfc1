cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
  connection {
    user         = "ops"
    password_env = "hunter2!" # ERROR: Invalid password_env
  }
}
