package command

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestKubernetesBackend drives the kubernetes state backend through the
// CLI against a real kube-apiserver (over a real etcd): plan/apply/state
// commands in-process, concurrent and killed applies as real eggo
// processes.
func TestKubernetesBackend(t *testing.T) {
	e := newKubeEnv(t)
	t.Run("apply keeps the state in a Secret", e.testApply)
	t.Run("secrets stay sealed in the Secret", e.testSealed)
	t.Run("migrate to the file and back", e.testMigrate)
	t.Run("concurrent applies with lock_timeout 0", e.testConcurrentRefused)
	t.Run("two writers of one state", e.testStaleWrite)
	t.Run("a write after the lock was lost", e.testLostLock)
	t.Run("force-unlock frees a killed holder's lock", e.testForceUnlock)
}

func (e *kubeEnv) testApply(t *testing.T) {
	s := e.site(t, "15s", "0s")
	r := s.mustRun(0, "apply", "-auto-approve")
	mustContain(t, "apply", r.out, "Apply complete! Resources: 1 added")
	s.inKubernetes()
	st, data, rev := s.stored()
	if resource(st, "host.n1") == nil {
		t.Fatalf("the state in the Secret has no host.n1:\n%s", data)
	}
	if l := s.lease(); l != nil {
		t.Fatalf("the lock is still held after apply ended: %+v", l.Spec)
	}

	if r = s.mustRun(0, "state", "pull"); r.out != string(data) {
		t.Fatalf("state pull printed\n%s\nbut the Secret holds\n%s", r.out, data)
	}
	r = s.mustRun(0, "apply", "-auto-approve")
	mustContain(t, "second apply", r.out, "No changes.")
	if _, _, after := s.stored(); after != rev {
		t.Fatalf("a no-op apply wrote the state (resourceVersion %s → %s)", rev, after)
	}
	if r = s.mustRun(0, "state", "list"); r.out != "host.n1\n" {
		t.Fatalf("state list = %q, want host.n1 from the Secret", r.out)
	}
	r = s.mustRun(0, "state", "show", "host.n1")
	mustContain(t, "state show", r.out, "127.0.0.1", "hello.txt")

	s.mustRun(0, "state", "rm", "host.n1")
	after, _, _ := s.stored()
	if resource(after, "host.n1") != nil || after.Serial != st.Serial+1 || after.Lineage != st.Lineage {
		t.Fatalf("after state rm the Secret holds serial %d (was %d)", after.Serial, st.Serial)
	}
	// The list really comes from the Secret: with it gone there is no state.
	if err := e.srv.Client.CoreV1().Secrets(s.ns).Delete(ctx10s(t), "eggo-state-t", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r = s.mustRun(1, "state", "list")
	mustContain(t, "state list with the Secret deleted", r.err, "no state at "+s.where())
	assertNoStateFile(t, s.fixture)
}

// testSealed applies a configuration with a secrets block and a sensitive
// output: no Secret holds its value in plain text, and show opens it only
// with the identity.
func (e *kubeEnv) testSealed(t *testing.T) {
	const token = "tok-SEALED-IN-KUBE-8812"
	s := e.site(t, "15s", "0s")
	id, idFile := newAgeIdentity(t)
	s.write("outputs.hcl", "output \"token\" {\n  value     = \""+token+"\"\n  sensitive = true\n}\n"+
		"secrets {\n  recipients = [\""+id.Recipient().String()+"\"]\n}\n")
	s.mustRun(0, "apply", "-auto-approve", "-identity="+idFile)
	s.inKubernetes()
	all := s.allSecretData()
	if len(all) == 0 || bytes.Contains(all, []byte(token)) {
		t.Fatalf("the Secrets (%d bytes) hold the sensitive output in plain text", len(all))
	}
	_, data, _ := s.stored()
	mustContain(t, "the stored state", string(data), `"sealed_outputs"`, id.Recipient().String())
	if r := s.mustRun(0, "state", "pull"); strings.Contains(r.out, token) {
		t.Fatal("state pull printed the sealed output")
	}
}

func (e *kubeEnv) testMigrate(t *testing.T) {
	s := e.site(t, "15s", "0s")
	// Apply with the file first: no backend block yet.
	os.Remove(filepath.Join(s.dir, "backend.hcl"))
	s.mustRun(0, "apply", "-auto-approve")
	fileData, err := os.ReadFile(s.statePath())
	if err != nil {
		t.Fatal(err)
	}
	s.writeBackend("15s", "0s")

	r := s.mustRun(1, "state", "migrate", "-to=etcd")
	mustContain(t, "migrate -to=etcd with a kubernetes backend", r.err, `the configuration's backend is "kubernetes"`)
	r = s.mustRun(0, "state", "migrate", "-to=kubernetes")
	mustContain(t, "migrate -to=kubernetes", r.out, "Moved the state", s.where(), "eggo.state.migrated")
	if fileExists(s.statePath()) || fileExists(s.statePath()+".lock") {
		t.Fatal("migrate -to=kubernetes left eggo.state or its lock in place")
	}
	if _, data, _ := s.stored(); !bytes.Equal(data, fileData) {
		t.Fatalf("the Secret holds\n%s\nnot the state file as it was\n%s", data, fileData)
	}
	if pulled := s.mustRun(0, "state", "pull").out; pulled != string(fileData) {
		t.Fatal("state pull after migrate differs from the migrated file")
	}
	mustContain(t, "plan after migrate", s.mustRun(0, "plan").out, "No changes.")

	// The destination holds a state: refused, nothing moved.
	if err := os.Rename(s.statePath()+".migrated", s.statePath()); err != nil {
		t.Fatal(err)
	}
	_, data, rev := s.stored()
	r = s.mustRun(1, "state", "migrate", "-to=kubernetes")
	mustContain(t, "migrate onto a state", r.err, s.where(), "already holds a state", "nothing was moved")
	r = s.mustRun(1, "state", "migrate", "-to=file")
	mustContain(t, "migrate onto a state file", r.err, "eggo.state already holds a state", "nothing was moved")
	if _, _, now := s.stored(); now != rev {
		t.Fatal("a refused migrate changed the Secret")
	}

	os.Remove(s.statePath())
	r = s.mustRun(0, "state", "migrate", "-to=file")
	mustContain(t, "migrate -to=file", r.out, "Moved the state", "deleted it from "+s.where(), `Remove the backend "kubernetes" block`)
	back, err := os.ReadFile(s.statePath())
	if err != nil || !bytes.Equal(back, data) {
		t.Fatalf("the state file after migrate -to=file differs from what the Secret held (%v)", err)
	}
	if s.head() != nil || s.lease() != nil {
		t.Fatal("migrate -to=file left the Secret or the Lease")
	}
	os.Remove(filepath.Join(s.dir, "backend.hcl"))
	mustContain(t, "plan on the file again", s.mustRun(0, "plan").out, "No changes.")
}

// testConcurrentRefused starts two applies at once: one takes the lock and
// holds it through a 3-second hook, the other is refused at once naming it.
func (e *kubeEnv) testConcurrentRefused(t *testing.T) {
	s := e.site(t, "15s", "0s")
	s.setDelay(3)
	a := s.start("apply", "-auto-approve")
	b := s.start("apply", "-auto-approve")
	ra, rb := a.wait(60*time.Second), b.wait(60*time.Second)
	win, lose, winner := ra, rb, a
	if ra.code != 0 {
		win, lose, winner = rb, ra, b
	}
	if win.code != 0 || lose.code != 1 {
		t.Fatalf("want one apply to succeed and the other to fail: exits %d and %d\nfirst:\n%s\nsecond:\n%s", ra.code, rb.code, ra.all(), rb.all())
	}
	mustContain(t, "the winner", win.out, "Apply complete! Resources: 1 added")
	mustContain(t, "the refused apply", lose.err, s.where(), "is locked by",
		fmt.Sprintf("pid %d, apply", winner.cmd.Process.Pid), "held for", "eggo force-unlock")
	s.inKubernetes()
}

// testStaleWrite opens the backend twice, as two runs that both read the
// state would: the first write lands, the second, built on what it read
// before, is refused and leaves the first one's state in place.
func (e *kubeEnv) testStaleWrite(t *testing.T) {
	s := e.site(t, "15s", "0s")
	s.mustRun(0, "apply", "-auto-approve")
	one, two := openBackend(t, s.fixture), openBackend(t, s.fixture)
	st1, err := one.Read()
	if err != nil {
		t.Fatal(err)
	}
	st2, err := two.Read()
	if err != nil {
		t.Fatal(err)
	}
	st1.Outputs, st2.Outputs = map[string]any{"writer": "one"}, map[string]any{"writer": "two"}
	st1.Serial++
	st2.Serial++
	if err := one.Write(st1); err != nil {
		t.Fatalf("the first writer was refused: %v", err)
	}
	_, data, rev := s.stored()
	err = two.Write(st2)
	if err == nil {
		t.Fatal("a write based on a version another run had replaced was accepted: a lost update")
	}
	mustContain(t, "the stale write's error", err.Error(), s.where(), "another run wrote the state", "resourceVersion "+rev, "nothing was written")
	if _, now, nowRev := s.stored(); nowRev != rev || !bytes.Equal(now, data) {
		t.Fatal("the refused write changed the Secret")
	}
	if st2, err = two.Read(); err != nil || st2.Outputs["writer"] != "one" {
		t.Fatalf("the second writer reads %v (%v), want the first one's state", st2.Outputs, err)
	}
	st2.Serial++
	if err := two.Write(st2); err != nil {
		t.Fatalf("a write on the current version was refused: %v", err)
	}
}

// testLostLock: a run whose lock was force-unlocked (its renewals then
// find the Lease gone) has its next write refused.
func (e *kubeEnv) testLostLock(t *testing.T) {
	s := e.site(t, "3s", "0s")
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
	id := s.lockHolderID()
	if err := two.(interface{ ForceUnlock(string) error }).ForceUnlock(id); err != nil {
		t.Fatal(err)
	}
	_, _, rev := s.stored()
	time.Sleep(2 * time.Second) // past a renewal (every 1s)
	st.Outputs = map[string]any{"after": "losing the lock"}
	st.Serial++
	err = one.Write(st)
	if err == nil {
		t.Fatal("a run that lost its lock wrote the state")
	}
	mustContain(t, "the write after the lock was lost", err.Error(), "lock is no longer held", "was deleted", "Nothing was written")
	if _, _, now := s.stored(); now != rev {
		t.Fatal("the refused write changed the Secret")
	}
	if err := lock.Unlock(); err == nil || !strings.Contains(err.Error(), "no longer held the lock") {
		t.Fatalf("Unlock of a lost lock: %v", err)
	}
}

// testForceUnlock kills -9 a holder whose Lease lasts 60s: force-unlock
// with the ID from the refusal frees it at once.
func (e *kubeEnv) testForceUnlock(t *testing.T) {
	s := e.site(t, "60s", "0s")
	s.setDelay(60)
	a := s.start("apply", "-auto-approve")
	holder := s.lockHolder(a, 30*time.Second)
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	a.wait(10 * time.Second)
	s.setDelay(0)

	r := s.mustRun(1, "apply", "-auto-approve")
	mustContain(t, "apply before force-unlock", r.err, "is locked by", fmt.Sprintf("pid %d, apply", holder.PID),
		"frees by itself 1m0s after", "eggo force-unlock "+holder.ID)
	r = s.mustRun(1, "force-unlock", "not-"+holder.ID)
	mustContain(t, "force-unlock of another ID", r.err, "not-"+holder.ID, holder.ID, "not freeing it")
	r = s.mustRun(0, "force-unlock", holder.ID)
	mustContain(t, "force-unlock", r.out, "The state lock "+holder.ID+" was removed.")
	r = s.mustRun(0, "apply", "-auto-approve")
	mustContain(t, "apply after force-unlock", r.out, "Apply complete!")
	r = s.mustRun(1, "force-unlock", holder.ID)
	mustContain(t, "force-unlock of a free lock", r.err, "not locked")
}
