cluster "demo" {
  kubernetes_version = "1.31.4"
  addons {
    coredns          = "yes please" # ERROR: Incorrect attribute value type
    coredns_replicas = 0            # ERROR: Invalid coredns_replicas
    coredns_upstream = ["10.0.0.53", "1.1.1.1:53", "dns.example"] # ERROR: Invalid coredns_upstream
    helm_charts      = []           # ERROR: Unsupported argument
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
