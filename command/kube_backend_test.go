package command

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// kubeScenarios look at the Secrets and the Lease.
var kubeScenarios = []scenario{
	{"secrets stay sealed in the Secret", testKubeSealed},
	{"a write after the lock was lost", testKubeLostLock},
}

// testKubeSealed applies a configuration with a secrets block and a
// sensitive output: no Secret holds its value in plain text, and show
// opens it only with the identity.
func testKubeSealed(t *testing.T, b sharedBackend) {
	const token = "tok-SEALED-IN-KUBE-8812"
	s, kube := siteWith[*kubeStore](t, b, "15s", "0s")
	id, idFile := newAgeIdentity(t)
	s.write("outputs.hcl", "output \"token\" {\n  value     = \""+token+"\"\n  sensitive = true\n}\n"+
		"secrets {\n  recipients = [\""+id.Recipient().String()+"\"]\n}\n")
	s.mustRun(0, "apply", "-auto-approve", "-identity="+idFile)
	s.assertInBackend()
	all := kube.allSecretData()
	if len(all) == 0 || bytes.Contains(all, []byte(token)) {
		t.Fatalf("the Secrets (%d bytes) hold the sensitive output in plain text", len(all))
	}
	_, data, _ := s.stored()
	mustContain(t, "the stored state", string(data), `"sealed_outputs"`, id.Recipient().String())
	if r := s.mustRun(0, "state", "pull"); strings.Contains(r.out, token) {
		t.Fatal("state pull printed the sealed output")
	}
}

// testKubeLostLock: a run whose lock was force-unlocked (its renewals
// then find the Lease gone) has its next write refused.
func testKubeLostLock(t *testing.T, b sharedBackend) {
	s := newSite(t, b, "3s", "0s")
	s.mustRun(0, "apply", "-auto-approve")
	one, two := openBackend(t, s.fixture), openBackend(t, s.fixture)
	lock, err := one.Lock("apply")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	st, err := one.Read()
	if err != nil {
		t.Fatal(err)
	}
	holder, ok := s.store.lock()
	if !ok {
		t.Fatalf("%s is not locked", s.store.where())
	}
	if err := two.(interface{ ForceUnlock(string) error }).ForceUnlock(holder.ID); err != nil {
		t.Fatal(err)
	}
	_, _, version := s.stored()
	time.Sleep(2 * time.Second) // past a renewal (every 1s)
	st.Outputs = map[string]any{"after": "losing the lock"}
	st.Serial++
	err = one.Write(st)
	if err == nil {
		t.Fatal("a run that lost its lock wrote the state")
	}
	mustContain(t, "the write after the lock was lost", err.Error(), "lock is no longer held", "was deleted", "Nothing was written")
	if _, _, now := s.stored(); now != version {
		t.Fatal("the refused write changed the Secret")
	}
	if err := lock.Unlock(); err == nil || !strings.Contains(err.Error(), "no longer held the lock") {
		t.Fatalf("Unlock of a lost lock: %v", err)
	}
}
