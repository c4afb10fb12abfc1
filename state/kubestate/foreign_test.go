package kubestate

import (
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/state"
)

// Objects at the store's names, or with its labels, that are not eggo's
// for the cluster: every read, write, delete and lock refuses them, names
// them, and leaves them exactly as they were.

// wantForeign: err is a *ForeignError whose message holds wants.
func wantForeign(t *testing.T, what string, err error, wants ...string) {
	t.Helper()
	var foreign *ForeignError
	if !errors.As(err, &foreign) {
		t.Fatalf("%s: %v, want a *ForeignError", what, err)
	}
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s: %v reads as no state", what, err)
	}
	wantIn(t, err.Error(), wants...)
}

// adminSecret is the Secret name as the admin sees it; nil if there is none.
func (e *env) adminSecret(t *testing.T, ns, name string) *corev1.Secret {
	t.Helper()
	sec, err := e.srv.Client.CoreV1().Secrets(ns).Get(bg(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return sec
}

// wantUntouched: the Secret is still before, byte for byte: the same
// object (UID) at the same resourceVersion, type, labels and data.
func (e *env) wantUntouched(t *testing.T, before *corev1.Secret) {
	t.Helper()
	now := e.adminSecret(t, before.Namespace, before.Name)
	if now == nil {
		t.Fatalf("Secret %s/%s was deleted", before.Namespace, before.Name)
	}
	if now.UID != before.UID || now.ResourceVersion != before.ResourceVersion || now.Type != before.Type ||
		!reflect.DeepEqual(now.Labels, before.Labels) || !reflect.DeepEqual(now.Data, before.Data) {
		t.Fatalf("Secret %s/%s changed: uid %s → %s, resourceVersion %s → %s, type %s → %s, labels %v → %v, data equal %v",
			before.Namespace, before.Name, before.UID, now.UID, before.ResourceVersion, now.ResourceVersion,
			before.Type, now.Type, before.Labels, now.Labels, reflect.DeepEqual(now.Data, before.Data))
	}
}

// secretNames lists every Secret of the namespace.
func (e *env) secretNames(t *testing.T, ns string) []string {
	t.Helper()
	list, err := e.srv.Client.CoreV1().Secrets(ns).List(bg(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range list.Items {
		names = append(names, s.Name)
	}
	return names
}

// testForeignHead: someone's Secret named eggo-state-demo (Opaque, no
// labels) is not "no state" (a new cluster, a new CA): Get, Put and
// Delete refuse it, naming it, and leave it as it was.
func (e *env) testForeignHead(t *testing.T) {
	c := e.config(t, "demo")
	theirs, err := e.srv.Client.CoreV1().Secrets(c.Namespace).Create(bg(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "eggo-state-demo"},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"password": []byte("hunter2")},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := open(t, c)
	named := []string{"Secret " + c.Namespace + "/eggo-state-demo exists but is not eggo's state for cluster demo",
		"type Opaque, want eggo.io/state", "no label app.kubernetes.io/managed-by"}

	_, _, err = s.Get(bg())
	wantForeign(t, "Get", err, append(named, "refusing to read it as this cluster's state, or as no state")...)
	_, err = s.Put(bg(), []byte(`{"serial":1}`), "")
	wantForeign(t, "Put of a new state", err, append(named, "refusing to overwrite it")...)
	// Even given its resourceVersion, and with chunks to write first.
	_, err = s.Put(bg(), randomState(6, 2<<20), theirs.ResourceVersion)
	wantForeign(t, "Put at its resourceVersion", err, append(named, "refusing to overwrite it")...)
	wantForeign(t, "Delete", s.Delete(bg(), theirs.ResourceVersion), append(named, "refusing to delete it")...)
	wantForeign(t, "Delete of no state", s.Delete(bg(), ""), append(named, "refusing to delete it")...)

	e.wantUntouched(t, theirs)
	if names := e.secretNames(t, c.Namespace); !reflect.DeepEqual(names, []string{"eggo-state-demo"}) {
		t.Fatalf("the refused writes left Secrets: %v", names)
	}
}

// testLostLabels: eggo's head whose labels were removed is refused, not
// read as no state; labelled again as the message says, it reads whole.
func (e *env) testLostLabels(t *testing.T) {
	c := e.config(t, "demo")
	s := open(t, c)
	big := randomState(7, 2<<20)
	if _, err := s.Put(bg(), big, ""); err != nil {
		t.Fatal(err)
	}
	chunks := e.chunkNames(t, s)
	secrets := e.srv.Client.CoreV1().Secrets(c.Namespace)
	head := e.adminSecret(t, c.Namespace, "eggo-state-demo")
	labels := head.Labels
	head.Labels = nil
	stripped, err := secrets.Update(bg(), head, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	_, _, err = s.Get(bg())
	hint := "label it again: kubectl -n " + c.Namespace + " label --overwrite secret eggo-state-demo " +
		"app.kubernetes.io/managed-by=eggo eggo.io/cluster=demo eggo.io/state-part=head"
	wantForeign(t, "Get of a head without labels", err, "Secret "+c.Namespace+"/eggo-state-demo exists but is not eggo's state for cluster demo",
		"no label app.kubernetes.io/managed-by, want app.kubernetes.io/managed-by=eggo", "refusing to read it", hint)
	_, err = s.Put(bg(), []byte(`{"serial":1}`), "")
	wantForeign(t, "Put of a new state", err, "refusing to overwrite it")
	wantForeign(t, "Delete", s.Delete(bg(), stripped.ResourceVersion), "refusing to delete it")
	e.wantUntouched(t, stripped)
	if now := e.chunkNames(t, s); !reflect.DeepEqual(now, chunks) {
		t.Fatalf("chunks %v, were %v", now, chunks)
	}

	// Labelled as a chunk, the head is no head (nor a chunk to collect).
	stripped.Labels = s.labels(partChunk)
	if stripped, err = secrets.Update(bg(), stripped, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Get(bg())
	wantForeign(t, "Get of a head labelled a chunk", err, "label eggo.io/state-part=chunk, want head")

	// Labelled again, it is the state it was.
	stripped.Labels = labels
	if _, err := secrets.Update(bg(), stripped, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if data, _, err := s.Get(bg()); err != nil || string(data) != string(big) {
		t.Fatalf("Get after labelling the head again: identical %v, %v", string(data) == string(big), err)
	}
}

// testForeignChunks: a Secret with the chunks' labels that is not eggo's
// (another type) survives every collection, and is named; a Secret of a
// chunk's name that is not eggo's is neither overwritten nor read as
// part of the state.
func (e *env) testForeignChunks(t *testing.T) {
	c := e.config(t, "demo")
	s := open(t, c)
	secrets := e.srv.Client.CoreV1().Secrets(c.Namespace)
	labelled, err := secrets.Create(bg(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "app-config", Labels: s.labels(partChunk)},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"chunk": []byte("not eggo's")},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ours := func() (names []string) {
		for _, n := range e.chunkNames(t, s) {
			if strings.HasPrefix(n, "eggo-state-demo-") {
				names = append(names, n)
			}
		}
		return names
	}
	rev, err := s.Put(bg(), randomState(8, 2<<20), "")
	if err != nil {
		t.Fatal(err)
	}
	if rev, err = s.Put(bg(), []byte("small"), rev); err != nil {
		t.Fatal(err)
	}
	if left := ours(); len(left) != 0 {
		t.Fatalf("after a small write, chunks %v remain", left)
	}
	e.wantUntouched(t, labelled)

	// Deleting the state deletes it, and says what it left.
	err = s.Delete(bg(), rev)
	wantForeign(t, "Delete", err, "Secret "+c.Namespace+"/app-config exists but is not eggo's state chunk for cluster demo",
		"type Opaque, want eggo.io/state", "refusing to delete it")
	if _, _, err := s.Get(bg()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Get after Delete: %v", err)
	}
	e.wantUntouched(t, labelled)

	// A Secret at the name of the next write's first chunk (of eggo's type,
	// not labelled as eggo's) is not overwritten; nothing else is written.
	big := randomState(9, 2<<20)
	first := s.split(big, "").chunks[0].Name
	squatter, err := secrets.Create(bg(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: first},
		Type:       secretType,
		Data:       map[string][]byte{"chunk": []byte("someone's")},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Put(bg(), big, "")
	wantForeign(t, "Put over a foreign chunk", err, "Secret "+c.Namespace+"/"+first+" exists but is not eggo's state chunk for cluster demo",
		"no label app.kubernetes.io/managed-by", "refusing to overwrite it")
	e.wantUntouched(t, squatter)
	if head := e.adminSecret(t, c.Namespace, "eggo-state-demo"); head != nil {
		t.Fatal("the refused write wrote the head")
	}
	if err := secrets.Delete(bg(), first, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// A chunk of the state replaced by someone's Secret, labelled and
	// holding the same bytes, is not read as part of the state.
	if _, err := s.Put(bg(), big, ""); err != nil {
		t.Fatal(err)
	}
	chunk := e.adminSecret(t, c.Namespace, first)
	if err := secrets.Delete(bg(), first, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := secrets.Create(bg(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: first, Labels: chunk.Labels, Annotations: chunk.Annotations},
		Type:       corev1.SecretTypeOpaque,
		Data:       chunk.Data,
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Get(bg())
	wantForeign(t, "Get of a state with a foreign chunk", err, "Secret "+c.Namespace+"/"+first+" exists but is not eggo's state chunk",
		"type Opaque, want eggo.io/state", "refusing to read it as part of this cluster's state")
}

// testForeignLease: a Lease named eggo-lock-demo that is not eggo's lock
// (someone's, or eggo's that lost its labels) is neither taken over,
// waited for, nor deleted by force-unlock: each is refused, naming it,
// and the Lease is left as it was.
func (e *env) testForeignLease(t *testing.T) {
	c := e.config(t, "demo")
	s := open(t, c)
	leases := e.srv.Client.CoordinationV1().Leases(c.Namespace)
	named := "Lease " + c.Namespace + "/eggo-lock-demo exists but is not eggo's lock for cluster demo"
	untouched := func(before *coordv1.Lease) {
		t.Helper()
		now := e.lease(t, s)
		if now == nil || now.UID != before.UID || now.ResourceVersion != before.ResourceVersion ||
			!reflect.DeepEqual(now.Labels, before.Labels) || !reflect.DeepEqual(now.Annotations, before.Annotations) ||
			!reflect.DeepEqual(now.Spec, before.Spec) {
			t.Fatalf("the Lease changed: %+v, was %+v", now, before)
		}
	}

	// Someone's Lease, held by nobody: free, if it were eggo's.
	theirs, err := leases.Create(bg(), &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "eggo-lock-demo",
		Labels: map[string]string{"app": "leader-election"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	wantForeign(t, "Lock", err, named, "no label app.kubernetes.io/managed-by", "refusing to take it over")
	start := time.Now()
	_, err = s.Lock(bg(), state.LockInfo{Operation: "apply"}, 10*time.Second)
	wantForeign(t, "Lock with a wait", err, named, "refusing to take it over")
	if waited := time.Since(start); waited > 2*time.Second {
		t.Errorf("Lock waited %s on a Lease that is not eggo's, want a refusal at once", waited)
	}
	wantForeign(t, "ForceUnlock", s.ForceUnlock(bg(), "any-id"), named, "refusing to delete it")
	untouched(theirs)
	if err := leases.Delete(bg(), theirs.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// eggo's Lease of a gone run, expired, that lost its labels.
	info := state.LockInfo{ID: "ghost-id", Owner: "ghost@gone", PID: 1, Operation: "apply", Created: time.Now().Add(-time.Hour).UTC()}
	l := &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: s.LeaseName()}}
	if err := s.take(l, info, time.Now().Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	l.Labels = nil
	ghost, err := leases.Create(bg(), l, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	wantForeign(t, "Lock over an expired Lease without labels", err, named, "refusing to take it over")
	wantForeign(t, "ForceUnlock of its ID", s.ForceUnlock(bg(), "ghost-id"), named, "refusing to delete it")
	untouched(ghost)
	if err := leases.Delete(bg(), ghost.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// A held lock whose Lease was replaced by someone's: Unlock leaves it.
	c.LockTTL = time.Minute // no renewal (every 20s) meets the swap
	s = open(t, c)
	held, err := s.Lock(bg(), state.LockInfo{Operation: "apply"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := leases.Delete(bg(), s.LeaseName(), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	swapped, err := leases.Create(bg(), &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: s.LeaseName()}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = held.Unlock()
	if err == nil {
		t.Fatal("Unlock of a lock whose Lease was replaced succeeded")
	}
	wantIn(t, err.Error(), "no longer held the lock", named, "refusing to delete it")
	untouched(swapped)
}
