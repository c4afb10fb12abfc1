cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.77.0.11"
  roles   = ["master", "etcd"]
}

node "worker" {
  for_each = { w0 = "10.77.0.21", w1 = "10.77.0.22" }
  address  = each.value
  roles    = ["worker"]
}

# openEuler eggo's per-role prejoin hook, with tkestack's files.
hook "prepare" {
  on       = ["pre-deploy", "pre-join"]
  roles    = ["worker"]
  source   = "hooks/prejoin.sh"
  files    = [{ src = "certs/ca.pem", dst = "/etc/hooks/ca.pem" }]
  timeout  = "2m"
  grace    = "10s"
  policy   = "retry"
  attempts = 5
  backoff  = "2s"
  fallback = "continue"
}

# A directory of scripts, once per operation (tkestack's PreClusterInstall).
hook "bootstrap" {
  on     = "pre-deploy"
  scope  = "cluster"
  source = "hooks/pre"
}

# A node hook on one named node, with every default.
hook "drain_notice" {
  on     = ["pre-delete", "pre-cleanup"]
  nodes  = [node.worker["w1"].name]
  source = "hooks/prejoin.sh"
}

# bcs-style check hooks.
hook "canary" {
  on    = ["post-deploy", "post-upgrade"]
  scope = "cluster"
  web {
    url       = "http://{{ args.svc }}/stats"
    method    = "POST"
    headers   = { Authorization = "Bearer {{ args.token }}" }
    body      = "{}"
    json_path = "{$.age}"
    timeout   = "5s"
  }
  args                    = { svc = "{{ cluster.api_endpoint }}", token = "t0ken" }
  count                   = 3
  interval                = "10s"
  initial_delay           = "5s"
  timeout                 = "2m"
  success_condition       = "asInt(result) < 30"
  failure_condition       = "asInt(result) > 60"
  failure_limit           = 1
  inconclusive_limit      = 2
  consecutive_error_limit = 0
  policy                  = "continue"
}

hook "node_up" {
  on = ["post-join"]
  prometheus {
    address = "http://10.77.0.11:9090"
    query   = "up{instance=\"{{ args.instance }}\"}"
    timeout = "3s"
  }
  args              = { instance = "{{ node.ip }}:9100" }
  success_condition = "asInt(result) == 1"
}
