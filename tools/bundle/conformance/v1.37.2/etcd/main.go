// Command etcd is etcd's own main (go.etcd.io/etcd/v3's main.go calls
// etcdmain.Main the same way): that package main is in etcd's root module,
// whose replace directives keep it from being built from another module. The
// conformance images' script builds it for the image the aggregator
// conformance test runs next to the sample API server
// (registry.k8s.io/etcd:3.7.0-0, whose tag names the release go.mod pins).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
