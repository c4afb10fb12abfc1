cluster "demo" {
  kubernetes_version = "1.31.4"
}

node "m0" {
  address = "0.0.0.0" # ERROR: Invalid node address
  roles   = ["master", "etcd"]
}

node "w" {
  for_each = {
    w0 = "::"
    w1 = "255.255.255.255"
    w2 = "224.0.0.1"
    w3 = "ff02::1"
    w4 = "::ffff:0.0.0.0"
  }
  address = each.value # ERROR: Invalid node address
  roles   = ["worker"]
  connection {
    bastion {
      host = "239.1.2.3" # ERROR: Invalid bastion host
    }
  }
}

node "ok" {
  address = "10.0.0.9"
  roles   = ["worker"]
  connection {
    bastion {
      host = "::" # ERROR: Invalid bastion host
    }
  }
}
