package resources

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/eggo-project/eggo/providers"
)

// TargetFor says how to reach a node as its configuration describes it.
func TargetFor(n Node) providers.Target {
	c := n.Connection
	t := providers.Target{
		Name:           n.Name,
		Type:           ConnType(c.Type),
		Address:        n.Address,
		Port:           connPort(c.Type, c.Port),
		User:           c.User,
		PrivateKeyFile: c.PrivateKeyFile,
		PasswordEnv:    c.PasswordEnv,
		Agent:          c.Agent,
		KnownHostsFile: c.KnownHostsFile,
		HostKey:        c.HostKey,
		Sudo:           c.Sudo,
		ConnectTimeout: c.Timeout,
		Retries:        c.Retries,
	}
	if b := c.Bastion; b != nil {
		t.Bastion = &providers.Target{
			Name:           n.Name + " bastion " + b.Host,
			Type:           "ssh",
			Address:        b.Host,
			Port:           connPort("ssh", b.Port),
			User:           b.User,
			PrivateKeyFile: b.PrivateKeyFile,
			PasswordEnv:    b.PasswordEnv,
			KnownHostsFile: c.KnownHostsFile,
			HostKey:        b.HostKey,
			ConnectTimeout: c.Timeout,
			Retries:        c.Retries,
		}
	}
	return t
}

// ConnectionAttrs is a node's connection as a JSON attribute. Kinds store it
// so Read and Delete can reach the host from state alone after the node has
// left the configuration. A password is never stored, only the name of the
// environment variable holding it. A host_key is stored only when set, so
// that records written before it existed are not a change.
func ConnectionAttrs(n Node) map[string]any {
	t := TargetFor(n)
	m := map[string]any{
		"type":             t.Type,
		"user":             t.User,
		"port":             float64(t.Port),
		"private_key_file": portablePath(t.PrivateKeyFile),
		"password_env":     t.PasswordEnv,
		"agent":            t.Agent,
		"known_hosts_file": portablePath(t.KnownHostsFile),
		"sudo":             t.Sudo,
		"timeout":          durationAttr(t.ConnectTimeout),
		"retries":          float64(t.Retries),
		"bastion":          nil,
	}
	if t.HostKey != "" {
		m["host_key"] = t.HostKey
	}
	if b := t.Bastion; b != nil {
		bm := map[string]any{
			"host":             b.Address,
			"port":             float64(b.Port),
			"user":             b.User,
			"private_key_file": portablePath(b.PrivateKeyFile),
			"password_env":     b.PasswordEnv,
		}
		if b.HostKey != "" {
			bm["host_key"] = b.HostKey
		}
		m["bastion"] = bm
	}
	return m
}

// ConnectionAttrsIn is ConnectionAttrs(n), one map for all of c's nodes
// that connect alike while c is indexed (a plan holds one for every
// resource of every node): shared, never change it.
func ConnectionAttrsIn(c *Cluster, n Node) map[string]any {
	return Shared(c, n.Connection, func() map[string]any { return ConnectionAttrs(n) })
}

// TargetFromAttrs rebuilds the Target of a node from the "address" and
// "connection" attributes that ConnectionAttrs produced.
func TargetFromAttrs(node string, a Attrs) (providers.Target, error) {
	addr, _ := a["address"].(string)
	conn, ok := a["connection"].(map[string]any)
	if !ok || addr == "" {
		return providers.Target{}, fmt.Errorf("%s: state has no address or connection to reach it", node)
	}
	timeout, err := time.ParseDuration(AttrOr(AttrString(conn["timeout"]), "0s"))
	if err != nil {
		return providers.Target{}, fmt.Errorf("%s: connection timeout in state: %v", node, err)
	}
	t := providers.Target{
		Name:           node,
		Type:           ConnType(AttrString(conn["type"])),
		Address:        addr,
		Port:           AttrInt(conn["port"]),
		User:           AttrString(conn["user"]),
		PrivateKeyFile: localPath(AttrString(conn["private_key_file"])),
		PasswordEnv:    AttrString(conn["password_env"]),
		Agent:          conn["agent"] == true,
		KnownHostsFile: localPath(AttrString(conn["known_hosts_file"])),
		HostKey:        AttrString(conn["host_key"]),
		Sudo:           conn["sudo"] == true,
		ConnectTimeout: timeout,
		Retries:        AttrInt(conn["retries"]),
	}
	if b, ok := conn["bastion"].(map[string]any); ok {
		t.Bastion = &providers.Target{
			Name:           node + " bastion " + AttrString(b["host"]),
			Type:           "ssh",
			Address:        AttrString(b["host"]),
			Port:           AttrInt(b["port"]),
			User:           AttrString(b["user"]),
			PrivateKeyFile: localPath(AttrString(b["private_key_file"])),
			PasswordEnv:    AttrString(b["password_env"]),
			KnownHostsFile: t.KnownHostsFile,
			HostKey:        AttrString(b["host_key"]),
			ConnectTimeout: timeout,
			Retries:        t.Retries,
		}
	}
	return t, nil
}

func ConnType(t string) string { return AttrOr(t, "ssh") }

// connPort fills in ssh's port so that "22" and "unset" are not a change.
func connPort(typ string, port int) int {
	if port == 0 && ConnType(typ) == "ssh" {
		return 22
	}
	return port
}

func durationAttr(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// portablePath writes a path under the operator's home as "~/…", so the
// state file reads the same on every operator's machine.
func portablePath(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" || !strings.HasPrefix(p, home+"/") {
		return p
	}
	return "~/" + strings.TrimPrefix(p, home+"/")
}

// localPath expands a "~/…" path from state to this operator's home.
func localPath(p string) string {
	if !strings.HasPrefix(p, "~/") {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(home, p[2:])
}
