cluster "demo" {
  kubernetes_version = "1.36.5"
  runtime {
    registry_mirrors = { "registry.k8s.io" = "http://10.77.0.1:5000" } # ERROR: Incorrect attribute value type
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
