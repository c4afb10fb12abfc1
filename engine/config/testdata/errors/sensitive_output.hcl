cluster "demo" {
  kubernetes_version = "1.31.4"
}

variable "token" {
  default   = "s3cr3t"
  sensitive = true
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}

output "token" {
  value = "token=${var.token}" # ERROR: Output refers to sensitive values
}
