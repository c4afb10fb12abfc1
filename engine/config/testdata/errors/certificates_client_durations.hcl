cluster "demo" {
  kubernetes_version = "1.31.4"
  certificates {
    validity     = "50h"
    ca_validity  = "100h"
    renew_before = "10h"
    client "short" {
      groups   = ["ops"]
      validity = "30m" # ERROR: Invalid duration
    }
    client "hasty" {
      groups       = ["ops"]
      validity     = "24h"
      renew_before = "30s" # ERROR: Invalid duration
    }
    client "eager" {
      groups       = ["ops"]
      validity     = "24h"
      renew_before = "24h" # ERROR: Invalid renew_before
    }
    client "long" {
      groups       = ["ops"]
      validity     = "200h" # ERROR: Invalid validity
      renew_before = "8h"
    }
    client "default" { # ERROR: Invalid validity
      groups = ["ops"]
    }
    client "bad" {
      groups   = ["ops"]
      validity = "a day" # ERROR: Invalid duration
    }
    client "fine" {
      groups       = ["ops"]
      validity     = "100h"
      renew_before = "99h"
    }
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
