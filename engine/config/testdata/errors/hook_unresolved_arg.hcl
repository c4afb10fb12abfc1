cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}

hook "canary" {
  on    = ["post-deploy"]
  scope = "cluster"
  web {
    url = "http://{{ args.svc }}:9091/{{ args.path }}" # ERROR: Unresolved hook argument
  }
  args = { svc = "canary" }
}

hook "node_args" {
  on = ["post-join"]
  prometheus {
    address = "http://127.0.0.1:9090"
    query   = "up{instance=\"{{ args.instance }}\"}"
  }
  args = { instance = "{{ node.address }}:9100" } # ERROR: Unresolved hook argument
}
