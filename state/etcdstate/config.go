// Package etcdstate stores eggo's state in an etcd v3 cluster: one key per
// cluster under a prefix, every write checked against the revision it was
// read at (so no run can overwrite a state it did not see), and a lock held
// through a lease, so it frees by itself when its holder dies.
//
// It stores bytes; package state owns their encoding. Every method's ctx
// bounds its requests to etcd: give it a deadline, or a dead cluster makes
// the call wait for as long as ctx lives.
package etcdstate

import (
	"fmt"
	"strings"
	"time"
)

// Config says where the state lives and how to reach it.
type Config struct {
	Endpoints []string // https://127.0.0.1:2379 …
	// Prefix is joined to Cluster with exactly one "/": "/eggo/" and "demo"
	// give the key /eggo/demo.
	Prefix  string
	Cluster string
	// CAFile alone: the server is verified against it. CertFile and KeyFile
	// together: this client authenticates with that certificate.
	CAFile, CertFile, KeyFile string
	// LockTTL is the lease TTL of the lock (whole seconds, rounded up): how
	// long a lock outlives a holder that died. Default 15s.
	LockTTL     time.Duration
	DialTimeout time.Duration // default 5s
}

// Defaults.
const (
	DefaultLockTTL     = 15 * time.Second
	DefaultDialTimeout = 5 * time.Second
)

func (c Config) withDefaults() Config {
	if c.LockTTL <= 0 {
		c.LockTTL = DefaultLockTTL
	}
	if c.DialTimeout <= 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	return c
}

func (c Config) validate() error {
	if len(c.Endpoints) == 0 {
		return fmt.Errorf("etcd backend: no endpoints")
	}
	for _, ep := range c.Endpoints {
		if strings.TrimSpace(ep) == "" {
			return fmt.Errorf("etcd backend: an empty endpoint in %q", c.Endpoints)
		}
	}
	if c.Cluster == "" || strings.Contains(c.Cluster, "/") {
		return fmt.Errorf("etcd backend: cluster name %q must be non-empty and without \"/\"", c.Cluster)
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		return fmt.Errorf("etcd backend: a client certificate needs both a cert file and a key file (cert %q, key %q)",
			c.CertFile, c.KeyFile)
	}
	return nil
}

// key is the state key: Prefix and Cluster joined by exactly one "/".
func (c Config) key() string {
	return strings.TrimRight(c.Prefix, "/") + "/" + c.Cluster
}

// lockTTLSeconds is LockTTL in whole seconds, rounded up, as leases count.
func (c Config) lockTTLSeconds() int64 {
	return int64((c.LockTTL + time.Second - 1) / time.Second)
}
