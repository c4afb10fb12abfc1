package ssh

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/eggo-project/eggo/providers"
)

// HostKeyError is a host key eggo refuses: unknown to known_hosts, or
// (Mismatch) different from the key known_hosts holds. It is never retried.
type HostKeyError struct {
	Host      string   // node name
	Address   string   // host:port as dialed
	File      string   // the known_hosts file consulted
	Mismatch  bool     // known_hosts holds other keys for this host
	Expected  []string // SHA256 fingerprints known_hosts holds, with file:line
	Presented string   // SHA256 fingerprint the server presented
	KeyType   string
}

func (e *HostKeyError) Error() string {
	host, port, _ := net.SplitHostPort(e.Address)
	scan := "ssh-keyscan -t " + strings.TrimPrefix(e.KeyType, "ssh-") + " "
	if port != "22" {
		scan += "-p " + port + " "
	}
	scan += host + " >> " + e.File
	if !e.Mismatch {
		return fmt.Sprintf("%s: host key of %s is not known (%s %s); verify the fingerprint out of band, then add it with: %s",
			e.Host, e.Address, e.KeyType, e.Presented, scan)
	}
	return fmt.Sprintf("%s: HOST KEY MISMATCH for %s: known_hosts expects %s but the server presented %s %s. "+
		"Someone may be intercepting the connection, or the host was reinstalled; eggo will not connect. "+
		"If the change is legitimate, remove the old entry (ssh-keygen -R '%s' -f %s) and add the new one: %s",
		e.Host, e.Address, strings.Join(e.Expected, ", "), e.KeyType, e.Presented,
		knownhosts.Normalize(e.Address), e.File, scan)
}

// hostKeyCheck is the verification for one hop: the callback and the host
// key algorithms to ask for, so that a host known by, say, its RSA key is
// not reported as a mismatch because it offered ed25519 first.
type hostKeyCheck struct {
	callback   ssh.HostKeyCallback
	algorithms []string
}

func hostKeyCheckFor(t providers.Target, o Options, addr string) (hostKeyCheck, error) {
	if o.HostKeyCallback != nil {
		cb, err := o.HostKeyCallback(t)
		if err != nil {
			return hostKeyCheck{}, fmt.Errorf("%s: host key check: %w", t.Name, err)
		}
		return hostKeyCheck{callback: cb}, nil
	}
	file := t.KnownHostsFile
	if file == "" {
		file = "~/.ssh/known_hosts"
	}
	file = expandHome(file)
	if _, err := os.Stat(file); err != nil {
		return hostKeyCheck{}, fmt.Errorf("%s: known_hosts file %s cannot be read (%v); create it with the host's key: ssh-keyscan -p %d %s >> %s",
			t.Name, file, err, t.Port, t.Address, file)
	}
	cb, err := knownhosts.New(file)
	if err != nil {
		return hostKeyCheck{}, fmt.Errorf("%s: known_hosts file %s: %w", t.Name, file, err)
	}
	check := func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		err := cb(hostname, remote, key)
		var ke *knownhosts.KeyError
		if !errors.As(err, &ke) {
			return err
		}
		e := &HostKeyError{Host: t.Name, Address: addr, File: file, Mismatch: len(ke.Want) > 0,
			Presented: ssh.FingerprintSHA256(key), KeyType: key.Type()}
		for _, w := range ke.Want {
			e.Expected = append(e.Expected, fmt.Sprintf("%s %s (%s:%d)", w.Key.Type(), ssh.FingerprintSHA256(w.Key), w.Filename, w.Line))
		}
		return e
	}
	return hostKeyCheck{callback: check, algorithms: knownAlgorithms(cb, addr)}, nil
}

// knownAlgorithms lists the host key algorithms matching the keys
// known_hosts holds for addr (none when the host is unknown). knownhosts
// reveals them only through a KeyError, so it is asked about a key no host
// has.
func knownAlgorithms(cb ssh.HostKeyCallback, addr string) []string {
	host, portStr, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portStr)
	err := cb(addr, &net.TCPAddr{IP: net.ParseIP(host), Port: port}, probeKey{})
	var ke *knownhosts.KeyError
	if !errors.As(err, &ke) {
		return nil
	}
	var algos []string
	seen := map[string]bool{}
	add := func(a ...string) {
		for _, x := range a {
			if !seen[x] {
				seen[x] = true
				algos = append(algos, x)
			}
		}
	}
	for _, w := range ke.Want {
		switch w.Key.Type() {
		case ssh.KeyAlgoRSA:
			add(ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA)
		default:
			add(w.Key.Type())
		}
	}
	return algos
}

// probeKey is a public key no host can have.
type probeKey struct{}

func (probeKey) Type() string                        { return "eggo-probe" }
func (probeKey) Marshal() []byte                     { return []byte("eggo-probe") }
func (probeKey) Verify([]byte, *ssh.Signature) error { return errors.New("probe key") }
