package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

func ageIdentity(t *testing.T) (recipient, idFile string) {
	t.Helper()
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	idFile = filepath.Join(t.TempDir(), "id.age")
	if err := os.WriteFile(idFile, []byte(id.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return id.Recipient().String(), idFile
}

func keyringFor(t *testing.T, recipients []string, idFiles ...string) *state.Keyring {
	t.Helper()
	var ids []age.Identity
	for _, f := range idFiles {
		got, err := state.ReadIdentities(f)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, got...)
	}
	k, err := state.NewKeyring(recipients, ids)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// The whole path through plan and apply: a secret is sealed in the file,
// a plan without an identity shows what it can and names what it cannot
// read, apply refuses, and a recipients change is planned and applied.
func TestSecretsThroughPlanAndApply(t *testing.T) {
	r := newRig(t)
	alice, aliceID := ageIdentity(t)
	bob, bobID := ageIdentity(t)
	want := func(v string) []resources.Desired {
		return []resources.Desired{desired("test.a", resources.Attrs{"secret": "hunter2", "value": v})}
	}

	o := r.opts()
	o.Keyring = keyringFor(t, []string{alice})
	p := r.plan(o, want("1")...)
	if p.Secrets != nil {
		t.Errorf("first plan: secrets change %+v (nothing to re-encrypt yet)", p.Secrets)
	}
	if res := r.apply(o, p); !res.OK() {
		t.Fatalf("apply: %v", res.Failed)
	}
	data, _ := os.ReadFile(r.state)
	if strings.Contains(string(data), "hunter2") || !strings.Contains(string(data), alice) {
		t.Fatalf("state not sealed to alice:\n%s", data)
	}

	// No identity: the plan still sees the non-secret change and names the
	// sealed value; apply refuses and changes nothing.
	noID := r.opts()
	noID.Keyring = keyringFor(t, []string{alice})
	p = r.plan(noID, want("2")...)
	if got := strings.Join(p.Unreadable, ","); got != "test.a.secret" {
		t.Errorf("Unreadable = %q", got)
	}
	if p.Step("test.a").Action != resources.Update {
		t.Errorf("the value change is not planned: %v", p.Step("test.a").Action)
	}
	prior, _ := noID.readState()
	_, err := apply(context.Background(), noID, p, prior, nil)
	if err == nil || !strings.Contains(err.Error(), "test.a.secret") || !strings.Contains(err.Error(), "-identity") || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("apply without identity: %v", err)
	}
	after, _ := os.ReadFile(r.state)
	if string(after) != string(data) {
		t.Error("a refused apply changed the state")
	}

	// Alice's identity, recipients now bob: planned as a state change, applied.
	move := r.opts()
	move.Keyring = keyringFor(t, []string{bob}, aliceID)
	p = r.plan(move, want("1")...)
	if p.Secrets == nil || strings.Join(p.Secrets.Added, ",") != bob || strings.Join(p.Secrets.Removed, ",") != alice || !p.HasChanges() {
		t.Fatalf("recipients change not planned: %+v", p.Secrets)
	}
	if res := r.apply(move, p); !res.OK() {
		t.Fatalf("apply: %v", res.Failed)
	}
	for _, c := range []struct {
		id       string
		readable bool
	}{{aliceID, false}, {bobID, true}} {
		st, err := state.ReadWith(r.state, keyringFor(t, nil, c.id))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(st.Unreadable()) == 0; got != c.readable {
			t.Errorf("identity %s reads the state: %v, want %v", c.id, got, c.readable)
		}
	}
	// And then nothing is left to do.
	bobs := r.opts()
	bobs.Keyring = keyringFor(t, []string{bob}, bobID)
	if p := r.plan(bobs, want("1")...); p.HasChanges() {
		t.Errorf("plan after the move has changes: secrets %+v", p.Secrets)
	}
}

// A resource whose desired value refers to a secret no identity opens is
// not compared (listed, planned as unchanged) rather than guessed changed.
func TestRefToSealedValueIsNotCompared(t *testing.T) {
	r := newRig(t)
	alice, aliceID := ageIdentity(t)
	o := r.opts()
	o.Keyring = keyringFor(t, []string{alice})
	ds := []resources.Desired{
		desired("test.a", resources.Attrs{"secret": "hunter2", "value": "1"}),
		desired("test.b", resources.Attrs{"value": resources.Ref{Addr: "test.a", Attr: "secret"}}),
	}
	if res := r.apply(o, r.plan(o, ds...)); !res.OK() {
		t.Fatalf("apply: %v", res.Failed)
	}
	// test.b records the value in plain text (as a service records its
	// file digests): without the key its desired value cannot be known.
	withID := keyringFor(t, []string{alice}, aliceID)
	st, err := state.ReadWith(r.state, withID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := st.Lookup("test.b")
	b.Sensitive = nil
	store := state.NewStore(r.state)
	store.SetKeyring(withID)
	if err := store.Write(st); err != nil {
		t.Fatal(err)
	}
	// No refresh: the test kind's "host" would hand back the secret.
	o.NoRefresh = true
	p := r.plan(o, ds...)
	if p.HasChanges() || strings.Join(p.Uncompared, ",") != "test.a,test.b" {
		t.Errorf("plan without identity: changes %v, uncompared %v; want none, and test.a (its own secret) and test.b (refers to it) not compared", actions(p), p.Uncompared)
	}
}
