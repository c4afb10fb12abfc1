cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "w" { # ERROR: No nodes
  for_each = {}
  address  = each.value
  roles    = ["worker"]
}
