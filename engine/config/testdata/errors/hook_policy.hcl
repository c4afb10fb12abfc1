cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}

hook "prep" {
  on     = ["pre-join"]
  source = "main.hcl"
  policy = "ignore" # ERROR: Invalid policy
}

hook "retry_settings" {
  on       = ["pre-join"]
  source   = "main.hcl"
  policy   = "continue"
  attempts = 3 # ERROR: Retry setting without retry policy
}

hook "no_policy" {
  on      = ["pre-join"]
  source  = "main.hcl"
  backoff = "10s" # ERROR: Retry setting without retry policy
}

hook "fallback" {
  on       = ["pre-join"]
  source   = "main.hcl"
  policy   = "retry"
  attempts = 0     # ERROR: Invalid attempts
  fallback = "retry" # ERROR: Invalid fallback
}
