# ERROR(no source): Missing cluster block
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
