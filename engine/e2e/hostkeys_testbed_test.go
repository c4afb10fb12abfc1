package e2e_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/harness/nspawntest"
)

// regenerateHostKeys makes a node look reinstalled: new host keys of every
// type, sshd restarted on them. It returns the new ed25519 key, read in the
// same session (the testbed's own known_hosts still holds the old key, so
// its helper cannot reach the node afterwards).
const regenerateHostKeys = `rm -f /etc/ssh/ssh_host_* && ssh-keygen -A >/dev/null && systemctl restart ssh.service && cat /etc/ssh/ssh_host_ed25519_key.pub`

// hostKeyOn reads the ed25519 host key a node's sshd serves, from the node.
func hostKeyOn(t *testing.T, tb *nspawntest.Testbed, node, command string) gossh.PublicKey {
	t.Helper()
	out, err := tb.Exec(context.Background(), node, command)
	if err != nil {
		t.Fatalf("%s: %v", node, err)
	}
	k, _, _, _, err := gossh.ParseAuthorizedKey([]byte(out))
	if err != nil {
		t.Fatalf("%s: host key %q: %v", node, out, err)
	}
	return k
}

// knownHostsKey is the key the testbed's known_hosts file holds for node.
func knownHostsKey(t *testing.T, file, node string) gossh.PublicKey {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for rest := data; len(rest) > 0; {
		_, hosts, k, _, next, err := gossh.ParseKnownHosts(rest)
		if err != nil {
			break
		}
		for _, h := range hosts {
			if h == node {
				return k
			}
		}
		rest = next
	}
	t.Fatalf("known_hosts %s holds no key for %s:\n%s", file, node, data)
	return nil
}

func readFileOrEmpty(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return data
}

func TestHostKeysOnTestbed(t *testing.T) {
	if testing.Short() {
		t.Skip("testbed test; -short")
	}
	tb := nspawntest.UpForTestWith(t, nspawntest.Options{Names: []string{"h0", "h1"}})
	dir := testbedConfig(t, tb, 0)
	statePath := filepath.Join(dir, "eggo.state")
	ctx := context.Background()

	onHost := map[string]gossh.PublicKey{}
	for _, h := range tb.Hosts {
		onHost[h.Name] = hostKeyOn(t, tb, h.Name, "cat /etc/ssh/ssh_host_ed25519_key.pub")
		if kh := knownHostsKey(t, h.KnownHostsFile, h.Name); !bytes.Equal(kh.Marshal(), onHost[h.Name].Marshal()) {
			t.Fatalf("%s: the testbed's known_hosts and the host disagree before the test", h.Name)
		}
	}
	oldH1 := onHost["h1"]

	// 1. The first plan scans every node and shows its real key as a pin.
	p, err := planOnce(dir, hostOnly)
	if err != nil {
		t.Fatalf("first plan: %v", err)
	}
	if len(p.HostKeys) != len(tb.Hosts) {
		t.Fatalf("first plan host keys: %+v, want a pin for each of %d nodes", p.HostKeys, len(tb.Hosts))
	}
	for _, c := range p.HostKeys {
		k, ok := onHost[c.Node]
		if !ok || c.Action != "pin" {
			t.Fatalf("first plan: unexpected host key change %+v", c)
		}
		if c.Fingerprint != "ssh-ed25519 "+gossh.FingerprintSHA256(k) {
			t.Errorf("%s: plan shows %s, the host's key is %s", c.Node, c.Fingerprint, gossh.FingerprintSHA256(k))
		}
		if c.Key != strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k))) {
			t.Errorf("%s: plan pins %q, not the host's key", c.Node, c.Key)
		}
	}
	_, res := runApply(t, dir, hostOnly)
	if !res.OK() {
		t.Fatalf("first apply: %v", res.Failed)
	}
	st, err := readStateFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.HostKeys) != len(tb.Hosts) {
		t.Fatalf("state pins %v, want exactly the %d nodes", st.HostKeys, len(tb.Hosts))
	}
	for n, k := range onHost {
		if want := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k))); st.HostKeys[n] != want {
			t.Errorf("state pins %s as %q, want %q", n, st.HostKeys[n], want)
		}
	}
	p, _ = runApply(t, dir, hostOnly)
	if len(p.HostKeys) != 0 || p.HasChanges() {
		t.Fatalf("second plan: host keys %+v, changes %v; want none", p.HostKeys, p.HasChanges())
	}

	// 2. h1 is "reinstalled": the next plan refuses it and the state stays.
	newH1 := hostKeyOn(t, tb, "h1", regenerateHostKeys)
	if bytes.Equal(newH1.Marshal(), oldH1.Marshal()) {
		t.Fatal("h1 kept its host key after regeneration")
	}
	before := readFileOrEmpty(t, statePath)
	_, err = planOnce(dir, hostOnly)
	if err == nil {
		t.Fatal("plan after h1's host key changed succeeded")
	}
	msg := err.Error()
	for _, want := range []string{"h1", gossh.FingerprintSHA256(oldH1), gossh.FingerprintSHA256(newH1), "rekey-host h1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("plan error does not name %q:\n%s", want, msg)
		}
	}
	// Fingerprints and keys are random base64 that can hold "h0"
	// ("…Vh0f…", "+h0/"): look for h0 as a word in what is left without
	// them.
	rest := regexp.MustCompile(`[A-Za-z0-9+/=]{20,}`).ReplaceAllString(msg, "")
	if regexp.MustCompile(`\bh0\b`).MatchString(rest) {
		t.Errorf("plan error blames h0 too:\n%s", msg)
	}
	if after := readFileOrEmpty(t, statePath); !bytes.Equal(before, after) {
		t.Fatal("a refused plan changed the state file")
	}

	// 3. rekey-host: a wrong fingerprint is refused; none pins the new key.
	rekeyWS, err := engine.Open(ctx, engine.Request{Dir: dir, StatePath: statePath})
	if err != nil {
		t.Fatal(err)
	}
	if err := rekeyWS.Lock("state rekey-host"); err != nil {
		t.Fatal(err)
	}
	wrong := gossh.FingerprintSHA256(oldH1)
	if r, err := rekeyWS.RekeyHost(ctx, "h1", wrong); err == nil {
		t.Fatalf("rekey with the old fingerprint accepted: %+v", r)
	} else if !namesWord(err.Error(), "h1") || !strings.Contains(err.Error(), gossh.FingerprintSHA256(newH1)) { // the fingerprints can hold "h1"
		t.Errorf("refused rekey does not name h1 and the key it presents: %v", err)
	}
	if after := readFileOrEmpty(t, statePath); !bytes.Equal(before, after) {
		t.Fatal("a refused rekey changed the state file")
	}
	r, err := rekeyWS.RekeyHost(ctx, "h1", "")
	rekeyWS.Close()
	if err != nil {
		t.Fatalf("rekey: %v", err)
	}
	if r.Node != "h1" || r.Old != "ssh-ed25519 "+gossh.FingerprintSHA256(oldH1) || r.New != "ssh-ed25519 "+gossh.FingerprintSHA256(newH1) {
		t.Fatalf("rekey returned %+v; want old %s, new %s", r, gossh.FingerprintSHA256(oldH1), gossh.FingerprintSHA256(newH1))
	}
	st, err = readStateFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(newH1))); st.HostKeys["h1"] != want {
		t.Fatalf("state pins h1 as %q after rekey, want the new key %q", st.HostKeys["h1"], want)
	}
	if want := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(onHost["h0"]))); st.HostKeys["h0"] != want {
		t.Fatalf("rekey of h1 changed h0's pin to %q", st.HostKeys["h0"])
	}

	// 4. The configuration's known_hosts_file (the testbed's) still holds
	// h1's OLD key: a pinned node is verified by its pin alone, so the
	// plan goes through on the new key.
	if kh := knownHostsKey(t, tb.Hosts[1].KnownHostsFile, "h1"); !bytes.Equal(kh.Marshal(), oldH1.Marshal()) {
		t.Fatal("the testbed's known_hosts no longer holds h1's old key; the check below would prove nothing")
	}
	p, res = runApply(t, dir, hostOnly)
	if !res.OK() {
		t.Fatalf("apply after rekey: %v", res.Failed)
	}
	if len(p.HostKeys) != 0 || p.HasChanges() {
		t.Fatalf("plan after rekey: host keys %+v, changes %v; want none", p.HostKeys, p.HasChanges())
	}

	// 5. A new state (first contact again) while known_hosts holds h1's
	// OLD key: first contact is verified by known_hosts when it knows the
	// host, so the plan's scan must not offer the key known_hosts
	// contradicts as a pin, and the apply's first dial refuses it.
	fresh := testbedConfig(t, tb, 0)
	p, err = planOnce(fresh, hostOnly)
	if err != nil {
		t.Fatalf("plan of a new state: %v", err)
	}
	for _, c := range p.HostKeys {
		if c.Node == "h1" {
			t.Fatalf("the plan offers to pin h1's %s although known_hosts holds %s for it", c.Fingerprint, gossh.FingerprintSHA256(oldH1))
		}
	}
	if len(p.HostKeys) != 1 || p.HostKeys[0].Node != "h0" {
		t.Fatalf("plan of a new state: host keys %+v, want a pin of h0 only", p.HostKeys)
	}
	if w := strings.Join(p.Warnings, "\n"); !namesWord(w, "h1") || !strings.Contains(w, gossh.FingerprintSHA256(oldH1)) { // the fingerprints can hold "h1"
		t.Errorf("the plan does not warn that h1's key contradicts known_hosts: %q", w)
	}
	ws, _, p, err := planIn(fresh, func(r *runOpts) { hostOnly(r); r.lock = "apply" })
	if err != nil {
		t.Fatal(err)
	}
	res, err = ws.Apply(ctx, p, engine.ApplyOptions{}, nil, nil)
	ws.Close()
	if err != nil {
		t.Fatalf("apply of a new state: %v", err)
	}
	if res.Failed["host.h0"] != nil {
		t.Fatalf("h0 failed: %v", res.Failed["host.h0"])
	}
	if res.Failed["host.h1"] == nil {
		t.Fatal("apply reached h1 although its key contradicts known_hosts")
	}
	msg = res.Failed["host.h1"].Error()
	for _, want := range []string{"known_hosts", tb.Hosts[1].KnownHostsFile, gossh.FingerprintSHA256(oldH1), gossh.FingerprintSHA256(newH1)} {
		if !strings.Contains(msg, want) {
			t.Errorf("h1's refusal does not name %q:\n%s", want, msg)
		}
	}
	if !namesWord(msg, "h1") { // the fingerprints are random base64 that can hold "h1"
		t.Errorf("h1's refusal does not name h1:\n%s", msg)
	}
	st, err = readStateFile(filepath.Join(fresh, "eggo.state"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.HostKeys["h1"]; ok || st.HostKeys["h0"] == "" {
		t.Fatalf("new state pins %v; want h0 only", st.HostKeys)
	}

	// 6. A known_hosts file that does not know h1 is no objection: first
	// contact is then trust on first use, shown in the plan.
	tofu := testbedConfig(t, tb, 0)
	onlyH0 := filepath.Join(tofu, "known_hosts")
	line := "h0," + tb.Hosts[0].Address + " " + string(gossh.MarshalAuthorizedKey(onHost["h0"]))
	if err := os.WriteFile(onlyH0, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	hcl, err := os.ReadFile(filepath.Join(tofu, "main.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	hcl = bytes.ReplaceAll(hcl, []byte(tb.Hosts[0].KnownHostsFile), []byte(onlyH0))
	if err := os.WriteFile(filepath.Join(tofu, "main.hcl"), hcl, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err = planOnce(tofu, hostOnly)
	if err != nil {
		t.Fatalf("plan with a known_hosts knowing h0 only: %v", err)
	}
	pinned := map[string]string{}
	for _, c := range p.HostKeys {
		pinned[c.Node] = c.Fingerprint
	}
	if len(pinned) != 2 || pinned["h0"] != "ssh-ed25519 "+gossh.FingerprintSHA256(onHost["h0"]) ||
		pinned["h1"] != "ssh-ed25519 "+gossh.FingerprintSHA256(newH1) {
		t.Fatalf("plan with a known_hosts knowing h0 only: pins %v; want h0's key and h1's new key", pinned)
	}
}
