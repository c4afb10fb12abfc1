//go:build tools

// etcdctl's main package (go.etcd.io/etcd/etcdctl/v3, the module's root)
// cannot be imported; its imports keep the module, at the release of
// server/v3, in go.mod and go.sum, so scripts/etcd.sh can go build it. In
// etcd 3.5 that main imports ctlv2 as well as ctlv3 (ETCDCTL_API=2).
package main

import (
	_ "go.etcd.io/etcd/etcdctl/v3/ctlv2"
	_ "go.etcd.io/etcd/etcdctl/v3/ctlv3"
)
