cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "w0" {
  address    = "10.0.0.2"
  roles      = ["worker"]
  depends_on = [node.master] # ERROR: Reference to undeclared node
}
