//go:build tools

// etcdctl's main package (go.etcd.io/etcd/etcdctl/v3, the module's root)
// cannot be imported; its one import keeps the module, at the release of
// server/v3, in go.mod and go.sum, so scripts/etcd.sh can go build it.
package main

import _ "go.etcd.io/etcd/etcdctl/v3/ctlv3"
