cluster "demo" {
  kubernetes_version = null # ERROR: Missing required argument
}

node "m0" {
  address = null # ERROR: Missing required argument
  roles   = null # ERROR: Missing required argument
}
