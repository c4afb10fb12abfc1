cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}

hook "web_without_block" {
  on   = ["post-deploy"]
  type = "web" # ERROR: Missing check provider
}

hook "web_with_prometheus" {
  on   = ["post-deploy"]
  type = "web"
  prometheus { # ERROR: Wrong check provider
    address = "http://127.0.0.1:9090"
    query   = "up"
  }
}

hook "shell_with_web" {
  on     = ["post-deploy"]
  type   = "shell"
  source = "main.hcl"
  web { # ERROR: Wrong check provider
    url = "http://127.0.0.1/healthz"
  }
}
