# VAR: nodes=3
# ERROR(no source): Value for undeclared variable
cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
