cluster "demo" { # ERROR: No nodes
  kubernetes_version = "1.31.4"
}
