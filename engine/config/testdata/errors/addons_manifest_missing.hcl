cluster "demo" {
  kubernetes_version = "1.31.4"
  addons {
    manifests = [
      "main.hcl",
      "manifests/nope.yaml", # ERROR: Manifest file not found
      ".",                   # ERROR: Manifest file not found
      "./main.hcl",          # ERROR: Duplicate add-on
    ]
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
