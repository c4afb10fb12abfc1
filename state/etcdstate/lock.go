package etcdstate
