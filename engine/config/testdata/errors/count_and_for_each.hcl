cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "w" {
  for_each = toset(["a"])
  count    = 2 # ERROR: Invalid combination of count and for_each
  address  = "10.0.0.1"
  roles    = ["worker"]
}
