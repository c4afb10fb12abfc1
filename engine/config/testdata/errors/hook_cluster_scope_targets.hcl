cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}

hook "once" {
  on     = ["pre-deploy"]
  scope  = "cluster"
  source = "main.hcl"
  roles  = ["master"] # ERROR: Roles or nodes on a cluster hook
  nodes  = ["m0"]     # ERROR: Roles or nodes on a cluster hook
}
