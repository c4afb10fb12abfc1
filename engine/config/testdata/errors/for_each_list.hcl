cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "w" {
  for_each = ["a", "b"] # ERROR: Invalid for_each argument
  address  = "10.0.0.1"
  roles    = ["worker"]
}
