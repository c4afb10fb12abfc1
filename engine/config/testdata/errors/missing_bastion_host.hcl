cluster "demo" {
  kubernetes_version = "1.31.4"
}

connection {
  bastion { # ERROR: Missing bastion host
    user = "jump"
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
