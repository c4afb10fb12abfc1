cluster "demo" {
  kubernetes_version = "1.36.5"
  runtime {
    registry_mirrors = {
      "registry.k8s.io"      = ["http://10.77.0.1:5000", "https://mirror.example:5000/"]
      "docker.io"            = ["ftp://mirror.example"] # ERROR: Invalid registry mirror
      "quay.io"              = ["https://user:hunter2@mirror.example"] # ERROR: Invalid registry mirror
      "ghcr.io"              = ["https://mirror.example/v2/ghcr"] # ERROR: Invalid registry mirror
      "gcr.io"               = ["http://10.77.0.1:5000", "http://10.77.0.1:5000"] # ERROR: Duplicate registry mirror
      "registry.k8s.io/path" = ["http://10.77.0.1:5000"] # ERROR: Invalid registry host
      "mirror.example:99999" = ["http://10.77.0.1:5000"] # ERROR: Invalid registry host
      "example.com"          = [] # ERROR: Invalid registry mirrors
      _default               = ["http://10.77.0.1:5000"]
      "k8s.gcr.io"           = ["http://10.77.0.1:5000"]
      "k8s.gcr.io"           = ["http://10.77.0.2:5000"] # ERROR: Duplicate registry host
    }
  }
}

node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd", "worker"]
}
