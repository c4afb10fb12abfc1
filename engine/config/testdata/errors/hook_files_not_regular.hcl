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
    { src = "main.hcl", dst = "/etc/eggo/main.hcl" },
    { src = ".", dst = "/etc/eggo/dir" },               # ERROR: Invalid hook file
    { src = "nope.conf", dst = "/etc/eggo/nope.conf" }, # ERROR: Invalid hook file
    { src = "main.hcl", dst = "etc/relative" },         # ERROR: Invalid hook file
  ]
}
