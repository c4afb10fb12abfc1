package nspawntest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// allocationLock serialises choosing ids and subnets across every process
// (and every run root) on this machine.
const allocationLock = "/run/eggo-testbed.lock"

// bootTimeout bounds how long a node may take from systemd-nspawn to sshd.
const bootTimeout = 90 * time.Second

// Up builds the rootfs if needed, then creates and boots every node and
// returns once sshd answers on all of them. On failure everything created so
// far is torn down again.
func Up(ctx context.Context, o Options) (*Testbed, error) {
	names, err := o.names()
	if err != nil {
		return nil, err
	}
	if _, err := o.placement(names); err != nil {
		return nil, err
	}
	logf := o.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if o.Rootfs == "" {
		o.Rootfs = RootfsDir()
	}
	if !RootfsReady(o.Rootfs) {
		logf("building rootfs %s with debootstrap (about a minute)", o.Rootfs)
	}
	if took, err := EnsureRootfs(ctx, o.Rootfs, nil); err != nil {
		return nil, err
	} else if took > 0 {
		logf("rootfs built in %s", took.Round(time.Second))
	}
	tb, err := reserve(ctx, o, names)
	if err != nil {
		return nil, err
	}
	if err := tb.create(ctx, logf); err != nil {
		if derr := tb.Down(); derr != nil {
			err = errors.Join(err, derr)
		}
		return nil, err
	}
	return tb, nil
}

// reserve picks the id and subnets, writes the record and creates the
// bridges, all under the machine-wide lock so parallel Ups never collide.
func reserve(ctx context.Context, o Options, names []string) (*Testbed, error) {
	if err := os.MkdirAll(filepath.Dir(allocationLock), 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockFile(ctx, allocationLock)
	if err != nil {
		return nil, err
	}
	defer unlock()
	root := o.RunRoot
	if root == "" {
		root = DefaultRunRoot()
	}
	id := o.ID
	if id == "" {
		if id, err = freeID(root); err != nil {
			return nil, err
		}
	}
	if !idPattern.MatchString(id) {
		return nil, fmt.Errorf("testbed: id %q must be 1-8 of [a-z0-9] (it becomes part of link names)", id)
	}
	dir := filepath.Join(root, id)
	if _, err := os.Stat(dir); err == nil {
		return nil, fmt.Errorf("testbed %s already exists in %s; take it down first", id, dir)
	}
	if linkExists(bridgeName(id)) || len(linksWithPrefix(bridgeName(id)+"-")) > 0 || len(netnsWithPrefix(netnsPrefix(id))) > 0 {
		return nil, fmt.Errorf("testbed %s: bridge %s or namespaces %s* already exist; take it down first", id, bridgeName(id), netnsPrefix(id))
	}
	rec, err := newRecord(o, id, dir, names)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("testbed %s: %w", id, err)
	}
	tb := fromRecord(rec)
	if err := rec.save(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	for _, n := range rec.networks() {
		if err := createBridge(ctx, n.Bridge, netip.MustParsePrefix(n.Subnet)); err != nil {
			tb.Down()
			return nil, fmt.Errorf("testbed %s: %w", id, err)
		}
	}
	return tb, nil
}

// newRecord picks the subnets (Options.Subnet or the first free ones) and
// places the nodes on them; node i takes .(firstNodeOctet+i) of its own.
func newRecord(o Options, id, dir string, names []string) (*record, error) {
	placed, err := o.placement(names)
	if err != nil {
		return nil, err
	}
	count, _ := o.networkCount()
	var subnets []netip.Prefix
	if o.Subnet != "" {
		p, err := parseSubnet(o.Subnet)
		if err != nil {
			return nil, err
		}
		if subnetInUse(p) {
			return nil, fmt.Errorf("testbed %s: subnet %s is already used on this machine", id, p)
		}
		subnets = append(subnets, p)
	}
	for len(subnets) < count {
		p, err := freeSubnet(subnets)
		if err != nil {
			return nil, err
		}
		subnets = append(subnets, p)
	}
	rec := &record{ID: id, Dir: dir, Subnet: subnets[0].String(), Bridge: bridgeName(id), Rootfs: o.Rootfs, Containers: o.Containers, ReadOnlyBinds: o.ReadOnlyBinds}
	for i := 1; i < count; i++ {
		rec.More = append(rec.More, networkRecord{Subnet: subnets[i].String(), Bridge: netBridgeName(id, i)})
	}
	if count > 1 {
		rec.Router = routerNetns(id)
	}
	for i, name := range names {
		rec.Nodes = append(rec.Nodes, nodeRecord{
			Name: name, Address: hostAddr(subnets[placed[i]], firstNodeOctet+i).String(), Network: placed[i],
			Netns: netnsName(id, name), Veth: vethName(id, i), Merged: dirsFor(dir, name).merged,
		})
	}
	return rec, nil
}

func freeID(root string) (string, error) {
	for i := 0; i < 100; i++ {
		b := make([]byte, 3)
		rand.Read(b)
		id := "t" + hex.EncodeToString(b)
		if _, err := os.Stat(filepath.Join(root, id)); os.IsNotExist(err) && !linkExists(bridgeName(id)) {
			return id, nil
		}
	}
	return "", fmt.Errorf("testbed: no free id in %s", root)
}

// create makes the router (with several networks) and each node's network,
// overlay and files, then boots them all and waits for sshd.
func (tb *Testbed) create(ctx context.Context, logf func(string, ...any)) error {
	rec := tb.rec
	client, err := newKeyPair("eggo-testbed-" + tb.ID)
	if err != nil {
		return err
	}
	if err := client.write(tb.keyFile()); err != nil {
		return fmt.Errorf("testbed %s: %w", tb.ID, err)
	}
	nets := rec.networks()
	if rec.Router != "" {
		if err := createRouter(ctx, tb.ID, rec.Router, nets); err != nil {
			return fmt.Errorf("testbed %s: %w", tb.ID, err)
		}
	}
	var known strings.Builder
	for _, n := range rec.Nodes {
		nw := nets[n.Network]
		if err := createNodeNetwork(ctx, n, nw.Bridge, netip.MustParsePrefix(nw.Subnet), otherSubnets(nets, n.Network)); err != nil {
			return fmt.Errorf("testbed %s: %w", tb.ID, err)
		}
		if err := mountOverlay(rec.Rootfs, dirsFor(tb.Dir, n.Name)); err != nil {
			return fmt.Errorf("testbed %s node %s: %w", tb.ID, n.Name, err)
		}
		line, err := provision(n.Merged, n, rec.Nodes, client.authorizedLine())
		if err != nil {
			return fmt.Errorf("testbed %s: %w", tb.ID, err)
		}
		known.WriteString(line)
	}
	if err := os.WriteFile(tb.knownHostsFile(), []byte(known.String()), 0o644); err != nil {
		return fmt.Errorf("testbed %s: %w", tb.ID, err)
	}
	start := time.Now()
	exited := map[string]<-chan struct{}{}
	for i := range rec.Nodes {
		done, err := bootNode(tb.Dir, &rec.Nodes[i], rec)
		if err != nil {
			return fmt.Errorf("testbed %s: %w", tb.ID, err)
		}
		exited[rec.Nodes[i].Name] = done
		if err := rec.save(); err != nil {
			return err
		}
	}
	waitCtx, cancel := context.WithTimeout(ctx, bootTimeout)
	defer cancel()
	var wg sync.WaitGroup
	var saveMu sync.Mutex
	save := func() error { saveMu.Lock(); defer saveMu.Unlock(); return rec.save() }
	errs := make([]error, len(rec.Nodes))
	for i, n := range rec.Nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = tb.waitBooted(waitCtx, &rec.Nodes[i], exited[n.Name], save, logf)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("testbed %s: %w", tb.ID, err)
	}
	logf("testbed %s: %d nodes booted in %s", tb.ID, len(rec.Nodes), time.Since(start).Round(10*time.Millisecond))
	return nil
}
