cluster "demo" {
  kubernetes_version = "1.31.4"
  # cluster labels go to cluster-scope hooks, not to Kubernetes objects
  labels = { team = "platform ops" }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
  labels = {
    "Example.com/tier" = "a"  # ERROR: Invalid label
    ok               = "-x"   # ERROR: Invalid label
    "example.com/"   = "a"    # ERROR: Invalid label
    "a/b/c"          = "a"    # ERROR: Invalid label
    "_x"             = "a"    # ERROR: Invalid label
    "x y"            = "a"    # ERROR: Invalid label
    zone             = "eu 1" # ERROR: Invalid label
    long             = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" # ERROR: Invalid label
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" = "a" # ERROR: Invalid label
    "/x"             = "a"    # ERROR: Invalid label
    "a.example.com/x-y_z.1" = "A-b_c.9"
    "kubernetes.io/role"    = ""
  }
}

node "w" {
  for_each = { w0 = "10.0.0.2" }
  address  = each.value
  roles    = ["worker"]
  labels   = { for k in ["good", "bad!"] : k => "v" } # ERROR: Invalid label
}
