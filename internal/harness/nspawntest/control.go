package nspawntest

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
)

// Host returns the named node.
func (tb *Testbed) Host(name string) (Host, error) {
	for _, h := range tb.Hosts {
		if h.Name == name {
			return h, nil
		}
	}
	return Host{}, fmt.Errorf("testbed %s: no node %q", tb.ID, name)
}

// Cut takes the host end of the node's veth down: the node stays up but
// nothing reaches it and it reaches nothing, like a pulled cable.
func (tb *Testbed) Cut(name string) error { return tb.setLink(name, "down") }

// Restore plugs the node's cable back in.
func (tb *Testbed) Restore(name string) error { return tb.setLink(name, "up") }

func (tb *Testbed) setLink(name, state string) error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	n, err := tb.rec.node(name)
	if err != nil {
		return err
	}
	if err := run(context.Background(), "ip", "link", "set", n.Veth, state); err != nil {
		return fmt.Errorf("testbed %s node %s: %w", tb.ID, name, err)
	}
	return nil
}

// Running reports whether the node's systemd-nspawn is alive.
func (tb *Testbed) Running(name string) (bool, error) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	n, err := tb.rec.node(name)
	if err != nil {
		return false, err
	}
	return sameProcess(n.PID, n.StartTime), nil
}

// Stop shuts one node down cleanly (SIGKILL after a grace period). Its
// overlay stays, so its files are there when it starts again.
func (tb *Testbed) Stop(name string) error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	n, err := tb.rec.node(name)
	if err != nil {
		return err
	}
	terminate(n.PID, n.StartTime, shutdownGrace)
	// An nspawn started for this node by another process that died before
	// recording it would keep the node running.
	for _, pid := range nspawnsUnder(filepath.Dir(n.Merged)) {
		start, _ := procStartTime(pid)
		terminate(pid, start, shutdownGrace)
	}
	n.PID, n.StartTime = 0, 0
	return tb.rec.save()
}

// Start boots a stopped node again on the same overlay and waits until its
// sshd answers.
func (tb *Testbed) Start(ctx context.Context, name string) error {
	tb.mu.Lock()
	n, err := tb.rec.node(name)
	if err != nil {
		tb.mu.Unlock()
		return err
	}
	if sameProcess(n.PID, n.StartTime) {
		tb.mu.Unlock()
		return fmt.Errorf("testbed %s: node %s is already running (pid %d)", tb.ID, name, n.PID)
	}
	exited, err := bootNode(tb.Dir, n, tb.rec)
	if err == nil {
		err = tb.rec.save()
	}
	tb.mu.Unlock()
	if err != nil {
		return fmt.Errorf("testbed %s: %w", tb.ID, err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, bootTimeout)
	defer cancel()
	save := func() error { tb.mu.Lock(); defer tb.mu.Unlock(); return tb.rec.save() }
	if err := tb.waitBooted(waitCtx, n, exited, save, func(string, ...any) {}); err != nil {
		return fmt.Errorf("testbed %s: %w", tb.ID, err)
	}
	return nil
}

// Subnet is the testbed's (first network's) IPv4 /24, e.g. "10.77.0.0/24".
func (tb *Testbed) Subnet() string { return tb.rec.Subnet }

// Network is one of a testbed's networks; Host.Network indexes
// Testbed.Networks.
type Network struct {
	Subnet string `json:"subnet"` // e.g. "10.77.1.0/24"
	Bridge string `json:"bridge"`
	// Gateway is this machine's address on the bridge (.1), every node's
	// default route; Router is the router namespace's (.254), through which
	// the nodes reach the other networks, empty with one network.
	Gateway string `json:"gateway"`
	Router  string `json:"router,omitempty"`
}

// Networks lists the testbed's networks: one unless Options.Networks said
// more.
func (tb *Testbed) Networks() []Network {
	var out []Network
	for _, n := range tb.rec.networks() {
		p, err := netip.ParsePrefix(n.Subnet)
		if err != nil {
			continue // not from Up; Open reads what Up wrote
		}
		nw := Network{Subnet: n.Subnet, Bridge: n.Bridge, Gateway: hostAddr(p, 1).String()}
		if tb.rec.Router != "" {
			nw.Router = hostAddr(p, routerOctet).String()
		}
		out = append(out, nw)
	}
	return out
}

// Containers reports whether nodes were booted able to run containers.
func (tb *Testbed) Containers() bool { return tb.rec.Containers }
