# One machine that is master, etcd member and worker at once.
# eggo -chdir=examples/single-host plan -var address=192.0.2.10

variable "address" {
  type        = string
  default     = "192.0.2.10"
  description = "the machine's address"
}

variable "packages" {
  type        = string
  default     = "/var/cache/eggo/bundle/v1.36.5"
  description = "the offline bundle (make bundle, or your own: website/bundle.md)"
}

cluster "single" {
  kubernetes_version = "1.36.5"
  packages           = var.packages
  network {
    service_cidr = "10.32.0.0/16"
    pod_cidr     = "10.244.0.0/16"
  }
}

connection {
  user             = "root"
  private_key_file = "~/.ssh/id_ed25519"
}

node "m0" {
  address = var.address
  roles   = ["master", "etcd", "worker"]
}

output "api_endpoint" {
  value = format("%s:6443", var.address)
}
