# VAR: count=three
cluster "demo" {
  kubernetes_version = "1.31.4"
}

variable "count" { # ERROR(no source): Invalid value for input variable
  type = number
}

node "m" {
  count   = var.count
  address = "10.0.0.${count.index + 1}"
  roles   = ["master", "etcd"]
}
