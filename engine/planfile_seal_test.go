package engine

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// pemMarker stands in for a private key's body: a saved plan of a sealed
// state must hold neither it nor a PEM private key header in clear.
const pemMarker = "MHcCAQEEIPlanSealMarker0123456789"

const testPEMKey = "-----BEGIN EC PRIVATE KEY-----\n" + pemMarker + "\n-----END EC PRIVATE KEY-----\n"

// A plan of a sealed state is saved sealed to the recipients given: no
// private key or sensitive value in clear, 0600. It opens with an identity
// of a recipient and applies; without one, or with another's, LoadPlan
// refuses and says which flag opens it.
func TestSealedPlanHoldsNoSecretAndApplies(t *testing.T) {
	r := newRig(t)
	alice, aliceID := ageIdentity(t)
	_, bobID := ageIdentity(t)
	o := r.opts()
	o.Keyring = keyringFor(t, []string{alice}, aliceID)
	want := func(v string) resources.Desired {
		return desired("test.a", resources.Attrs{"secret": testPEMKey, "value": v})
	}
	if res := r.apply(o, r.plan(o, want("1"))); !res.OK() {
		t.Fatalf("apply: %v", res.Failed)
	}
	p := r.plan(o, want("2"))
	dir := t.TempDir()

	// Saved plain (what every plan was before), it holds the key: the
	// check below sees it if it is there.
	plainPath := filepath.Join(dir, "plain.plan")
	if err := SavePlan(plainPath, p, PlanSeal{}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(plainPath); !strings.Contains(string(data), pemMarker) {
		t.Fatal("the plan holds no secret: the test proves nothing")
	}

	path := filepath.Join(dir, "sealed.plan")
	if err := SavePlan(path, p, PlanSeal{To: []string{alice}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, clear := range []string{"PRIVATE KEY", pemMarker, `"secret"`} {
		if strings.Contains(string(data), clear) {
			t.Errorf("the sealed plan holds %q in clear", clear)
		}
	}
	if !strings.Contains(string(data), alice) {
		t.Error("the sealed plan does not name its recipient")
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("sealed plan file mode: %v, %v", st.Mode().Perm(), err)
	}

	for _, c := range []struct {
		ids   []string
		wants []string
	}{
		{nil, []string{"sealed plan", "-identity=FILE", alice[:20]}},
		{[]string{bobID}, []string{"no identity given opens it", "-identity=FILE"}},
	} {
		if _, err := LoadPlan(path, c.ids); err == nil {
			t.Errorf("LoadPlan with identities %v opened a plan sealed to alice", c.ids)
		} else {
			for _, w := range c.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("LoadPlan with identities %v: %v; want %q in it", c.ids, err, w)
				}
			}
		}
	}

	loaded, err := LoadPlan(path, []string{bobID, aliceID})
	if err != nil {
		t.Fatal(err)
	}
	prior, err := o.readState()
	if err != nil {
		t.Fatal(err)
	}
	res, err := apply(context.Background(), o, loaded, prior, nil)
	if err != nil || !res.OK() {
		t.Fatalf("apply of the sealed plan: %v %v", err, res)
	}
	if got := r.kind.opsOf("update"); len(got) != 1 || got[0] != "test.a" {
		t.Errorf("updates %v, want test.a once", got)
	}
}

// The same plan saved again over its sealed file keeps the file byte for
// byte when an identity opens it to the very same plan (the GitOps Jobs
// know a plan made again by its file's hash); a changed plan, other
// recipients, or no identity to check with, seal anew.
func TestSealedPlanSavedAgainIsTheSameFile(t *testing.T) {
	r := newRig(t)
	alice, aliceID := ageIdentity(t)
	bob, _ := ageIdentity(t)
	o := r.opts()
	o.Keyring = keyringFor(t, []string{alice}, aliceID)
	p := r.plan(o, desired("test.a", resources.Attrs{"secret": testPEMKey}))
	path := filepath.Join(t.TempDir(), "the.plan")
	read := func() []byte {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	seal := PlanSeal{To: []string{alice}, Identities: []string{aliceID}}
	if err := SavePlan(path, p, seal); err != nil {
		t.Fatal(err)
	}
	first := read()
	if err := SavePlan(path, r.plan(o, desired("test.a", resources.Attrs{"secret": testPEMKey})), seal); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(read(), first) {
		t.Fatal("the same plan saved again is another file")
	}
	for name, c := range map[string]struct {
		p    *Plan
		seal PlanSeal
	}{
		"no identity":      {p, PlanSeal{To: []string{alice}}},
		"other recipients": {p, PlanSeal{To: []string{alice, bob}, Identities: []string{aliceID}}},
		"another plan":     {r.plan(o, desired("test.a", resources.Attrs{"secret": testPEMKey, "value": "2"})), seal},
	} {
		if err := SavePlan(path, c.p, c.seal); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(read(), first) {
			t.Errorf("%s: the file was kept", name)
		}
		// Back to the first file for the next case.
		if err := os.WriteFile(path, first, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// A sealed plan file is an eggo plan: -out may replace it.
func TestSealedPlanIsOverwritable(t *testing.T) {
	alice, _ := ageIdentity(t)
	path := filepath.Join(t.TempDir(), "the.plan")
	if err := SavePlan(path, &Plan{}, PlanSeal{To: []string{alice}}); err != nil {
		t.Fatal(err)
	}
	if err := checkOverwritable(path); err != nil {
		t.Fatal(err)
	}
}
