cluster "demo" {
  kubernetes_version = "1.31.4"
}

resource "host" "x" { # ERROR: Unsupported block type
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
