package providers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
)

// Pool keeps exactly one connection per target for one run. Concurrent Get
// calls for the same target wait for the one dial.
type Pool struct {
	log   hclog.Logger
	mu    sync.Mutex
	conns map[string]*poolEntry
	// own overrides the registered dialers for this pool (a run's pinned
	// host keys travel in its SSH dialer).
	own map[string]Dialer

	dials   atomic.Int64
	writes  atomic.Int64
	uploads atomic.Int64 // bytes
}

type poolEntry struct {
	ready chan struct{}
	conn  Conn
	err   error
}

// Stats are a run's transport figures.
type Stats struct {
	Connections   int64 // connections opened
	Writes        int64 // uploads plus commands marked Mutates
	BytesUploaded int64
}

// NewPool returns an empty pool.
func NewPool(log hclog.Logger) *Pool {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &Pool{log: log, conns: map[string]*poolEntry{}}
}

// Get returns the run's connection to t, dialing it on first use. A failed
// dial is remembered: the host is unreachable for the rest of the run.
func (p *Pool) Get(ctx context.Context, t Target) (Conn, error) {
	if t.Type == "" {
		t.Type = "ssh"
	}
	if t.Port == 0 && t.Type == "ssh" {
		t.Port = 22
	}
	key := t.Key()
	p.mu.Lock()
	e, ok := p.conns[key]
	if !ok {
		e = &poolEntry{ready: make(chan struct{})}
		p.conns[key] = e
	}
	p.mu.Unlock()
	if !ok {
		p.mu.Lock()
		d := p.own[t.Type]
		p.mu.Unlock()
		if d == nil {
			d = dialers[t.Type]
		}
		if d == nil {
			e.err = fmt.Errorf("%s: unknown connection type %q", t.Name, t.Type)
		} else {
			p.dials.Add(1)
			p.log.Debug("connecting", "host", t.Name, "target", key)
			c, err := d(ctx, t)
			switch {
			case err == nil:
				e.conn = &countingConn{Conn: c, pool: p}
			case ctx.Err() == nil && refusedHostKey(err):
				// Not unreachable: a host presenting another key may be
				// an impostor, and -force must not take it for gone.
				e.err = err
			case ctx.Err() == nil:
				// c is dropped: a dialer's typed nil would make a non-nil
				// Conn that Close dereferences.
				e.err = &UnreachableError{Host: t.Name, Err: err}
			default:
				e.err = err
			}
		}
		close(e.ready)
	}
	select {
	case <-e.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return e.conn, e.err
}

// SetDialer makes the pool dial targets of type typ with d instead of the
// registered dialer. Call it before the first Get of that type.
func (p *Pool) SetDialer(typ string, d Dialer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.own == nil {
		p.own = map[string]Dialer{}
	}
	p.own[typ] = d
}

// refusedHostKey reports whether err is a host key the transport refused.
func refusedHostKey(err error) bool {
	var hk interface{ HostKeyRefused() bool }
	return errors.As(err, &hk) && hk.HostKeyRefused()
}

// Stats returns the figures so far.
func (p *Pool) Stats() Stats {
	return Stats{Connections: p.dials.Load(), Writes: p.writes.Load(), BytesUploaded: p.uploads.Load()}
}

// Close closes every connection; it returns the first error.
func (p *Pool) Close() error {
	p.mu.Lock()
	keys := make([]string, 0, len(p.conns))
	for k := range p.conns {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	entries := p.conns
	p.conns = map[string]*poolEntry{}
	p.mu.Unlock()
	var first error
	for _, k := range keys {
		e := entries[k]
		<-e.ready
		if e.conn != nil {
			if err := e.conn.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

type countingConn struct {
	Conn
	pool *Pool
}

func (c *countingConn) Run(ctx context.Context, cmd Command) error {
	if cmd.Mutates {
		c.pool.writes.Add(1)
	}
	return c.Conn.Run(ctx, cmd)
}

func (c *countingConn) Upload(ctx context.Context, r io.Reader, size int64, dst string, mode fs.FileMode, sha string) error {
	c.pool.writes.Add(1)
	c.pool.uploads.Add(size)
	return c.Conn.Upload(ctx, r, size, dst, mode, sha)
}
