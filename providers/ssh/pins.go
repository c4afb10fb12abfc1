package ssh

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strconv"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/eggo-project/eggo/providers"
)

// HostKeyPins is where a run's pinned host keys live (the engine backs it
// with the state file). Implementations must be safe for concurrent use:
// a run dials many hosts at once.
type HostKeyPins interface {
	// Pinned is the key pinned for this node, if any.
	Pinned(node string) (ssh.PublicKey, bool)
	// Seen is called on first contact with an unpinned node, once its key
	// was accepted and the connection established.
	Seen(node string, key ssh.PublicKey)
}

// preferredHostKeyAlgorithms are asked for when no key of a host is known
// yet. Plain keys only: a certificate expires, so pinning one would lock a
// host out; SHA-1 RSA and DSA are left out as OpenSSH leaves them out.
var preferredHostKeyAlgorithms = []string{
	ssh.KeyAlgoED25519,
	ssh.KeyAlgoECDSA256, ssh.KeyAlgoECDSA384, ssh.KeyAlgoECDSA521,
	ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256,
}

// pinCheckFor verifies a target by its pinned key or, on first contact, by
// its host_key when set, else by known_hosts when that knows the host,
// else trusting the key on first use.
func pinCheckFor(t providers.Target, pins HostKeyPins, addr string) (hostKeyCheck, error) {
	configured, err := configuredKey(t)
	if err != nil {
		return hostKeyCheck{}, err
	}
	if pin, ok := pins.Pinned(t.Name); ok {
		// The pin governs. A plan refuses a host_key that differs from
		// it, so a difference here is a record written before the pin
		// was replaced (eggo state rekey-host), not the configuration.
		if configured != nil && bytes.Equal(configured.Marshal(), pin.Marshal()) {
			return configuredCheck(t, pin, addr, true), nil
		}
		return pinnedCheck(t, pin, addr), nil
	}
	var (
		mu   sync.Mutex
		seen ssh.PublicKey
	)
	record := func(key ssh.PublicKey) {
		mu.Lock()
		seen = key
		mu.Unlock()
	}
	check := hostKeyCheck{
		callback: func(_ string, _ net.Addr, key ssh.PublicKey) error {
			record(key)
			return nil
		},
		algorithms: preferredHostKeyAlgorithms,
		accepted: func() {
			mu.Lock()
			defer mu.Unlock()
			if seen != nil {
				pins.Seen(t.Name, seen)
			}
		},
	}
	if configured != nil {
		// Pinned from the very first contact: no trust on first use,
		// and known_hosts is not consulted.
		verify := configuredCheck(t, configured, addr, false)
		check.callback = func(hostname string, remote net.Addr, key ssh.PublicKey) error {
			if err := verify.callback(hostname, remote, key); err != nil {
				return err
			}
			record(key)
			return nil
		}
		check.algorithms = verify.algorithms
		return check, nil
	}
	file := knownHostsPath(t)
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return check, nil
	}
	cb, err := knownhosts.New(file)
	if err != nil {
		return hostKeyCheck{}, fmt.Errorf("%s: known_hosts file %s: %w", t.Name, file, err)
	}
	known := knownAlgorithms(cb, addr)
	if len(known) == 0 {
		return check, nil // the file does not know this host
	}
	verify := knownHostsCallback(t, addr, file, cb)
	check.callback = func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		if err := verify(hostname, remote, key); err != nil {
			return err
		}
		record(key)
		return nil
	}
	check.algorithms = known
	return check, nil
}

// pinnedCheck accepts exactly the pinned key.
func pinnedCheck(t providers.Target, pin ssh.PublicKey, addr string) hostKeyCheck {
	return exactCheck(t, pin, addr, HostKeyError{Pinned: true})
}

// configuredCheck accepts exactly the connection's host_key; pinned says
// the state pins the same key.
func configuredCheck(t providers.Target, key ssh.PublicKey, addr string, pinned bool) hostKeyCheck {
	return exactCheck(t, key, addr, HostKeyError{Configured: true, Pinned: pinned})
}

// exactCheck accepts exactly want; any other key is refused with refusal,
// completed with the host and both keys. want's algorithms are asked for
// first, so that a host holding several keys presents that one; the others
// follow, so that a host which lost that key type is refused as a mismatch
// naming both keys rather than failing negotiation.
func exactCheck(t providers.Target, want ssh.PublicKey, addr string, refusal HostKeyError) hostKeyCheck {
	wire := want.Marshal()
	return hostKeyCheck{
		callback: func(_ string, _ net.Addr, key ssh.PublicKey) error {
			if bytes.Equal(key.Marshal(), wire) {
				return nil
			}
			e := refusal
			e.Host, e.Address, e.Mismatch = t.Name, addr, true
			e.Expected = []string{Fingerprint(want)}
			e.Presented, e.KeyType, e.PresentedKey = ssh.FingerprintSHA256(key), key.Type(), key
			return &e
		},
		algorithms: pinAlgorithms(want),
	}
}

// configuredKey is t's host_key, nil when it has none. A key that does not
// parse refuses the connection: it must not open the door.
func configuredKey(t providers.Target) (ssh.PublicKey, error) {
	if t.HostKey == "" {
		return nil, nil
	}
	k, err := ParseHostKey(t.HostKey)
	if err != nil {
		return nil, fmt.Errorf("%s: host_key: %w", t.Name, err)
	}
	return k, nil
}

func pinAlgorithms(pin ssh.PublicKey) []string {
	return appendNew(algorithmsFor(pin.Type()), preferredHostKeyAlgorithms...)
}

// CheckFirstContact verifies key, presented by t while t has no pin, as a
// first dial would: against t's host_key when set, else against t's
// known_hosts when that file knows the host (a *HostKeyError naming the
// expected and presented fingerprints otherwise); a missing file or a
// host it does not know is no objection. A scan uses it so that it never
// offers to pin a key the host_key or known_hosts contradicts.
func CheckFirstContact(t providers.Target, key ssh.PublicKey) error {
	t = withDefaults(t)
	addr := net.JoinHostPort(t.Address, strconv.Itoa(t.Port))
	check, err := pinCheckFor(t, noPins{}, addr)
	if err != nil {
		return err
	}
	return check.callback(addr, &net.TCPAddr{IP: net.ParseIP(t.Address), Port: t.Port}, key)
}

// noPins pins nothing and records nothing.
type noPins struct{}

func (noPins) Pinned(string) (ssh.PublicKey, bool) { return nil, false }
func (noPins) Seen(string, ssh.PublicKey)          {}
