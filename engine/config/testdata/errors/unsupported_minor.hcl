cluster "demo" {
  kubernetes_version = "1.30.9" # ERROR: Unsupported Kubernetes version
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
