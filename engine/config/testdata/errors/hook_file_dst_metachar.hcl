cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}

hook "prep" {
  on     = ["pre-join"]
  source = "main.hcl"
  files = [
    { src = "main.hcl", dst = "/etc/eggo/a;rm -rf x" }, # ERROR: Invalid hook file
  ]
}
