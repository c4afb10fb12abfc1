go test fuzz v1
string("cluster \"mini\" {\n  kubernetes_version = \"1.31.4\"\n}\n\nnode \"solo\" {\n  address = \"127.0.0.1\"\n  roles   = [\"master\", \"etcd\", \"worker\"]\n  connection {\n    type = \"local\"\n  }\n}\n")
