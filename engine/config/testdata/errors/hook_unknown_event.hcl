cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}

hook "prep" {
  source = "main.hcl"
  on = [
    "pre-join",
    "prejoin",    # ERROR: Unknown hook event
    "PreInstall", # ERROR: Unknown hook event
  ]
}
