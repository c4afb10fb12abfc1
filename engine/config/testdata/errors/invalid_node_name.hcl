cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "w" {
  for_each = { Worker_0 = "10.0.0.1" } # ERROR: Invalid node name
  address  = each.value
  roles    = ["worker"]
}
