package engine

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// injectDataKey is what a writer of the state file who is no recipient
// can do: put a data key of their own in it, sealed to recipients (the
// team's and their own), and drop the sealed values, as if the secrets
// were not made yet.
func injectDataKey(t *testing.T, path string, recipients ...string) {
	t.Helper()
	var rs []age.Recipient
	for _, r := range recipients {
		parsed, err := state.ParseRecipient(r)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, parsed)
	}
	var buf bytes.Buffer
	w, err := age.Encrypt(&buf, rs...)
	if err != nil {
		t.Fatal(err)
	}
	key := make([]byte, 32)
	rand.Read(key)
	w.Write(key)
	w.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	top["data_key"] = base64.StdEncoding.EncodeToString(buf.Bytes())
	for _, r := range top["resources"].([]any) {
		delete(r.(map[string]any), "sealed")
		delete(r.(map[string]any), "sensitive")
	}
	if data, err = json.MarshalIndent(top, "", "\t"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Through plan and apply: a data key sealed to the recipients and to an
// outsider is warned about and not adopted, so the secret the apply makes
// again is one the outsider cannot open.
func TestInjectedDataKeyIsNotAdoptedByApply(t *testing.T) {
	r := newRig(t)
	alice, aliceID := ageIdentity(t)
	eve, eveID := ageIdentity(t)
	want := func(secret string) []resources.Desired {
		return []resources.Desired{desired("test.a", resources.Attrs{"secret": secret, "value": "1"})}
	}
	o := r.opts()
	o.Keyring = keyringFor(t, []string{alice}, aliceID)
	if res := r.apply(o, r.plan(o, want("hunter2")...)); !res.OK() {
		t.Fatalf("apply: %v", res.Failed)
	}
	injectDataKey(t, r.state, alice, eve)

	o = r.opts()
	o.Keyring = keyringFor(t, []string{alice}, aliceID)
	p := r.plan(o, want("hunter3")...)
	if w := strings.Join(p.Warnings, "\n"); !strings.Contains(w, "The state's data key will not be reused: its envelope is sealed to 2 recipient(s) (X25519 ×2), but the state's recipients are 1 recipient(s) (X25519)") {
		t.Errorf("the plan does not warn of the injected data key: %q", w)
	}
	if res := r.apply(o, p); !res.OK() {
		t.Fatalf("apply: %v", res.Failed)
	}
	eves, err := state.ReadWith(r.state, keyringFor(t, nil, eveID))
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := eves.Lookup("test.a"); a.Attributes["secret"] != nil || len(eves.Unreadable()) != 1 {
		t.Fatalf("the outsider opens the secret sealed after the injection (unreadable to her: %v)", eves.Unreadable())
	}
	alices, err := state.ReadWith(r.state, keyringFor(t, nil, aliceID))
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := alices.Lookup("test.a"); a.Attributes["secret"] != "hunter3" {
		t.Errorf("alice reads %v", a.Attributes["secret"])
	}
}

// A wrong identity is named as such in the plan and in apply's refusal,
// never as "no identity given".
func TestWrongIdentityIsSaidSo(t *testing.T) {
	r := newRig(t)
	alice, aliceID := ageIdentity(t)
	_, bobID := ageIdentity(t)
	ds := []resources.Desired{desired("test.a", resources.Attrs{"secret": "hunter2", "value": "1"})}
	o := r.opts()
	o.Keyring = keyringFor(t, []string{alice}, aliceID)
	if res := r.apply(o, r.plan(o, ds...)); !res.OK() {
		t.Fatalf("apply: %v", res.Failed)
	}
	bob := r.opts()
	bob.Keyring = keyringFor(t, []string{alice}, bobID)
	p := r.plan(bob, ds...)
	if why := p.UnreadableReasons["test.a.secret"]; !strings.HasPrefix(why, "wrong identity: ") {
		t.Errorf("the plan's reason: %q, want a wrong identity", why)
	}
	prior, err := bob.readState()
	if err != nil {
		t.Fatal(err)
	}
	_, err = apply(t.Context(), bob, p, prior, nil)
	if err == nil || !strings.Contains(err.Error(), "could not be decrypted (test.a.secret): wrong identity: ") || strings.Contains(err.Error(), "no identity given") {
		t.Fatalf("apply with a wrong identity: %v", err)
	}
}
