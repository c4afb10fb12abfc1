cluster "demo" {
  kubernetes_version = "1.31.4"
  certificates {
    client "capi" {
      groups = ["system:masters"]
    }
    client "capi" { # ERROR: Duplicate client block
      groups = ["system:masters"]
    }
    client "admin" { # ERROR: Reserved client name
      groups = ["system:masters"]
    }
    client "CAPI" { # ERROR: Invalid client name
      groups = ["system:masters"]
    }
    client "ci_bot" { # ERROR: Invalid client name
      groups = ["system:masters"]
    }
    client "-ci" { # ERROR: Invalid client name
      groups = ["system:masters"]
    }
    client "no-groups" { # ERROR: Missing required argument
    }
    client "empty" {
      groups = [] # ERROR: Invalid groups
    }
    client "blank" {
      groups = ["ops", ""] # ERROR: Invalid groups entry
    }
    client "twice" {
      groups = ["ops", "dev", "ops"] # ERROR: Duplicate groups entry
    }
    client "typo" {
      groups = ["ops"]
      lifetime = "24h" # ERROR: Unsupported argument
    }
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
