package ssh

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/eggo-project/eggo/providers"
)

// HostKeyError is a host key eggo refuses: unknown to known_hosts, or
// (Mismatch) different from the key known_hosts holds, or (Pinned) different
// from the key pinned in state, or (Configured) different from the
// connection's host_key. It is never retried.
type HostKeyError struct {
	Host         string   // node name
	Address      string   // host:port as dialed
	File         string   // the known_hosts file consulted; empty when Pinned or Configured
	Mismatch     bool     // the host is known, by other keys
	Pinned       bool     // the expected key is the one pinned in state
	Configured   bool     // the expected key is the connection's host_key (and the pin, if Pinned)
	Expected     []string // the keys expected, as type and SHA256 fingerprint (with file:line from known_hosts)
	Presented    string   // SHA256 fingerprint the server presented
	KeyType      string   // type of the presented key
	PresentedKey ssh.PublicKey
}

// HostKeyRefused marks the error for packages that must tell a refused host
// key from an unreachable host without importing this one (a host whose key
// was refused is not known to be gone: it may be an impostor).
func (e *HostKeyError) HostKeyRefused() bool { return true }

func (e *HostKeyError) Error() string {
	if e.Configured {
		fix := "If the host was reinstalled, verify its new key out of band and set host_key to it"
		if e.Pinned {
			fix += ", then accept it in the state with: eggo state rekey-host " + e.Host
		}
		return fmt.Sprintf("%s: HOST KEY MISMATCH for %s: its host_key is %s but the server presented %s %s. "+
			"Someone may be intercepting the connection, or the host was reinstalled; eggo will not connect. %s",
			e.Host, e.Address, strings.Join(e.Expected, ", "), e.KeyType, e.Presented, fix)
	}
	if e.Pinned {
		return fmt.Sprintf("%s: HOST KEY MISMATCH for %s: the key pinned in state is %s but the server presented %s %s. "+
			"Someone may be intercepting the connection, or the host was reinstalled; eggo will not connect. "+
			"If the host was reinstalled, accept its new key with: eggo state rekey-host %s",
			e.Host, e.Address, strings.Join(e.Expected, ", "), e.KeyType, e.Presented, e.Host)
	}
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
	// accepted, when set, runs once the handshake has succeeded (it pins
	// the key seen on first contact).
	accepted func()
}

// hostKeyCheckFor picks how the hop t is verified: by the keys pinned in
// state when o.Pins is set (DialWith clears it for a bastion), else by its
// host_key (t.HostKey), else by o.HostKeyCallback, else by known_hosts
// alone.
func hostKeyCheckFor(t providers.Target, o Options, addr string) (hostKeyCheck, error) {
	if o.Pins != nil {
		return pinCheckFor(t, o.Pins, addr)
	}
	configured, err := configuredKey(t)
	if err != nil {
		return hostKeyCheck{}, err
	}
	if configured != nil {
		return configuredCheck(t, configured, addr, false), nil
	}
	if o.HostKeyCallback != nil {
		cb, err := o.HostKeyCallback(t)
		if err != nil {
			return hostKeyCheck{}, fmt.Errorf("%s: host key check: %w", t.Name, err)
		}
		return hostKeyCheck{callback: cb}, nil
	}
	file := knownHostsPath(t)
	if _, err := os.Stat(file); err != nil {
		return hostKeyCheck{}, fmt.Errorf("%s: known_hosts file %s cannot be read (%v); create it with the host's key: ssh-keyscan -p %d %s >> %s",
			t.Name, file, err, t.Port, t.Address, file)
	}
	cb, err := knownhosts.New(file)
	if err != nil {
		return hostKeyCheck{}, fmt.Errorf("%s: known_hosts file %s: %w", t.Name, file, err)
	}
	return hostKeyCheck{callback: knownHostsCallback(t, addr, file, cb), algorithms: knownAlgorithms(cb, addr)}, nil
}

func knownHostsPath(t providers.Target) string {
	file := t.KnownHostsFile
	if file == "" {
		file = "~/.ssh/known_hosts"
	}
	return expandHome(file)
}

// knownHostsCallback turns knownhosts' errors into HostKeyErrors that name
// the node and say what to do.
func knownHostsCallback(t providers.Target, addr, file string, cb ssh.HostKeyCallback) ssh.HostKeyCallback {
	return func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		err := cb(hostname, remote, key)
		var ke *knownhosts.KeyError
		if !errors.As(err, &ke) {
			return err
		}
		e := &HostKeyError{Host: t.Name, Address: addr, File: file, Mismatch: len(ke.Want) > 0,
			Presented: ssh.FingerprintSHA256(key), KeyType: key.Type(), PresentedKey: key}
		for _, w := range ke.Want {
			e.Expected = append(e.Expected, fmt.Sprintf("%s (%s:%d)", Fingerprint(w.Key), w.Filename, w.Line))
		}
		return e
	}
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
	for _, w := range ke.Want {
		algos = appendNew(algos, algorithmsFor(w.Key.Type())...)
	}
	return algos
}

// algorithmsFor lists the host key algorithms that make a server present
// its key of keyType: an RSA key is signed with SHA-2 by modern servers and
// SHA-1 only by old ones.
func algorithmsFor(keyType string) []string {
	if keyType == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{keyType}
}

// appendNew appends the items of add that list does not hold yet.
func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}

// probeKey is a public key no host can have.
type probeKey struct{}

func (probeKey) Type() string                        { return "eggo-probe" }
func (probeKey) Marshal() []byte                     { return []byte("eggo-probe") }
func (probeKey) Verify([]byte, *ssh.Signature) error { return errors.New("probe key") }
