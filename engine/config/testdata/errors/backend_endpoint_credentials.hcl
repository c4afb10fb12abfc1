# Credentials in an endpoint are refused, and the password is not echoed.
cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}

backend "etcd" {
  endpoints = [
    "https://10.0.0.5:2379",
    "https://eggo:hunter2@10.0.0.6:2379", # ERROR: Credentials in an etcd endpoint
    "https://10.0.0.7:99999",             # ERROR: Invalid etcd endpoint
  ]
}
