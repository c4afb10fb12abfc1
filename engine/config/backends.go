package config

import (
	"fmt"
	"github.com/eggo-project/eggo/internal/text"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Backend is the backend block: where the state is kept.
type Backend struct {
	Type string // "file", "etcd" or "kubernetes"
	// file
	Path string // absolute; "" means the default eggo.state
	// etcd
	Endpoints                 []string
	Prefix                    string // ends with "/"
	CAFile, CertFile, KeyFile string // absolute
	// kubernetes
	Kubeconfig string // absolute; "": in a pod its service account, else $KUBECONFIG, else ~/.kube/config
	Context    string // "": the kubeconfig's current context
	Namespace  string // "": the context's namespace (in a pod, its own), else "default"
	// the lock of a shared backend (etcd, kubernetes)
	LockTTL     time.Duration
	LockTimeout time.Duration // how long to wait for a held lock; 0 refuses at once
	Range       hcl.Range
}

// Shared says whether the backend is one several machines share (not the
// file): `eggo state migrate` moves the state between it and the file.
func (b *Backend) Shared() bool { return b != nil && b.Type != "file" }

func (l *loader) decodeBackend(b *hcl.Block, cluster string) (*Backend, hcl.Diagnostics) {
	be := &Backend{Type: b.Labels[0], Range: b.DefRange}
	switch be.Type {
	case "file":
		dec, attrs, diags := l.blockDecoder(b, fileBackendSchema)
		if dec == nil {
			return nil, diags
		}
		if p := dec.strPtr(attrs, "path"); p != nil {
			be.Path = l.pathAttr(dec, attrs["path"], *p)
		}
		return be, dec.diags
	case "etcd":
		return l.decodeEtcdBackend(b, be)
	case "kubernetes":
		return l.decodeKubeBackend(b, be, cluster)
	}
	return nil, hcl.Diagnostics{diagf(b.LabelRanges[0], "Unknown backend type",
		"Backend %s is not one eggo has; use \"file\" (the default: eggo.state beside the configuration), \"etcd\" or \"kubernetes\".", quoted(be.Type))}
}

// The bounds of the lock's durations. A live holder renews its lock at a
// third of lock_ttl, so a long TTL buys nothing while eggo runs; it only
// says how long a holder that died (a killed eggo, a lost machine) keeps
// everyone else out: maxLockTTL. lock_timeout is how long a run waits for
// a held lock, at most maxLockTimeout.
const (
	minLockTTL     = 2 * time.Second
	maxLockTTL     = time.Hour
	maxLockTimeout = 24 * time.Hour
)

// decodeLock reads the lock attributes every shared backend has.
func decodeLock(dec *decoder, attrs hcl.Attributes, be *Backend) {
	be.LockTTL = dec.duration(attrs, "lock_ttl", 15*time.Second)
	switch {
	case be.LockTTL < minLockTTL:
		dec.errorf(attrs["lock_ttl"].Expr.Range(), "Invalid lock_ttl", "lock_ttl must be at least 2s: the lock is kept alive at a third of it.")
	case be.LockTTL > maxLockTTL:
		dec.errorf(attrs["lock_ttl"].Expr.Range(), "Invalid lock_ttl",
			"lock_ttl must be at most 1h; got %s. The lock is kept alive at a third of it while eggo runs, so a longer one only "+
				"keeps everyone out longer when a holder dies without unlocking.", text.Duration(be.LockTTL))
	}
	// lock_timeout may be zero (refuse at once, the default), unlike
	// the positive durations elsewhere.
	if s := dec.strPtr(attrs, "lock_timeout"); s != nil {
		d, err := time.ParseDuration(*s)
		switch {
		case err != nil || d < 0:
			dec.errorf(attrs["lock_timeout"].Expr.Range(), "Invalid lock_timeout",
				"lock_timeout must be a duration such as \"0s\" (refuse at once) or \"2m\"; got %s.", dec.show(attrs["lock_timeout"], *s))
		case d > maxLockTimeout:
			dec.errorf(attrs["lock_timeout"].Expr.Range(), "Invalid lock_timeout",
				"lock_timeout must be at most 24h; got %s. A run that waits longer for a lock is forgotten: let it fail and run it again.", text.Duration(d))
		}
		be.LockTimeout = d
	}
}

// String describes the backend for messages.
func (b *Backend) String() string {
	switch {
	case b == nil || b.Type == "file":
		return "file"
	case b.Type == "kubernetes":
		ns := b.Namespace
		if ns == "" {
			ns = "(the context's)"
		}
		return "kubernetes namespace " + ns
	}
	return fmt.Sprintf("etcd %s (prefix %s)", strings.Join(b.Endpoints, ","), b.Prefix)
}
