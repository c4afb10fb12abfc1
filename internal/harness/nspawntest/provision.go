package nspawntest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// provision writes what makes a node itself before its first boot: name,
// every node's address in /etc/hosts, the test key for root, a pinned host
// key and a machine-id. It returns the node's known_hosts line.
func provision(root string, self nodeRecord, all []nodeRecord, authorized []byte) (string, error) {
	hostKey, err := newKeyPair("root@" + self.Name)
	if err != nil {
		return "", err
	}
	var hosts strings.Builder
	hosts.WriteString("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n")
	for _, n := range all {
		fmt.Fprintf(&hosts, "%s\t%s\n", n.Address, n.Name)
	}
	id := make([]byte, 16)
	rand.Read(id)
	files := []struct {
		path string
		data []byte
		mode os.FileMode
	}{
		{"etc/hostname", []byte(self.Name + "\n"), 0o644},
		{"etc/hosts", []byte(hosts.String()), 0o644},
		// No nameserver: glibc then asks 127.0.0.1, which refuses at once,
		// so lookups of names not in /etc/hosts fail fast instead of timing
		// out against a server the testbed must not reach.
		{"etc/resolv.conf", []byte("# eggo testbed: no DNS, node names are in /etc/hosts\n"), 0o644},
		{"etc/machine-id", []byte(hex.EncodeToString(id) + "\n"), 0o444},
		{"root/.ssh/authorized_keys", authorized, 0o600},
		{"etc/ssh/ssh_host_ed25519_key", hostKey.private, 0o600},
		{"etc/ssh/ssh_host_ed25519_key.pub", hostKey.authorizedLine(), 0o644},
	}
	if err := os.MkdirAll(filepath.Join(root, "root/.ssh"), 0o700); err != nil {
		return "", fmt.Errorf("node %s: %w", self.Name, err)
	}
	for _, f := range files {
		p := filepath.Join(root, f.path)
		os.Remove(p) // the lower layer's copy may be read-only (machine-id)
		if err := os.WriteFile(p, f.data, f.mode); err != nil {
			return "", fmt.Errorf("node %s: write %s: %w", self.Name, f.path, err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			return "", fmt.Errorf("node %s: chmod %s: %w", self.Name, f.path, err)
		}
	}
	return knownHostsLine(self.Name, self.Address, hostKey.public), nil
}
