package kubestate

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Every object the store reads as state, updates or deletes is checked to
// be eggo's for this cluster first (owned): the names and labels the store
// uses may be taken by someone else's object, and one that is must be
// neither overwritten, nor deleted, nor read as the state, nor as no state
// (a head Secret that lost its labels read as "no state" would plan a new
// cluster, with a new CA). Deletes are conditioned on the UID and
// resourceVersion the check saw, so an object swapped in between is not
// deleted.

// What a refusal refuses to do with a foreign object.
const (
	toRead      = "to read it as this cluster's state, or as no state"
	toReadChunk = "to read it as part of this cluster's state"
	toOverwrite = "to overwrite it"
	toDelete    = "to delete it"
	toTakeOver  = "to take it over"
	toRenew     = "to renew it"
)

// ForeignError says an object at one of the store's names, or carrying
// its labels, is not eggo's for this cluster: the store refused to read,
// write or delete it.
type ForeignError struct {
	Kind      string   // "Secret" or "Lease"
	Namespace string   //
	Name      string   //
	Cluster   string   // the store's cluster
	Is        string   // what it should be: "state", "state chunk", "lock"
	Wrong     []string // what differs, e.g. "type Opaque, want eggo.io/state"
	Refusing  string   // e.g. "to overwrite it"
	Hint      string   // what to do, or ""
}

func (e *ForeignError) Error() string {
	msg := fmt.Sprintf("kubernetes backend: %s %s/%s exists but is not eggo's %s for cluster %s (%s): refusing %s",
		e.Kind, e.Namespace, e.Name, e.Is, e.Cluster, strings.Join(e.Wrong, "; "), e.Refusing)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// partLock is the Lease's part label.
const partLock = "lock"

var partIs = map[string]string{partHead: "state", partChunk: "state chunk", partLock: "lock"}

// owned is nil if obj (a Secret or a Lease read from the server) is
// eggo's part of this cluster's state: a Secret of type eggo.io/state, and
// either kind labelled managed-by eggo, this cluster, this part (and a
// chunk named as one: the head relabelled a chunk is no chunk). Otherwise
// it is a *ForeignError naming obj, what is wrong with it, and what the
// store refuses to do with it (refusing).
func (s *Store) owned(obj metav1.Object, part, refusing string) error {
	var kind string
	var wrong []string
	switch o := obj.(type) {
	case *corev1.Secret:
		kind = "Secret"
		if o.Type != secretType {
			wrong = append(wrong, fmt.Sprintf("type %s, want %s", o.Type, secretType))
		}
	case *coordv1.Lease:
		kind = "Lease"
	default:
		panic(fmt.Sprintf("kubestate: owned(%T)", obj))
	}
	if part == partChunk && !s.isChunkName(obj.GetName()) {
		wrong = append(wrong, fmt.Sprintf("name %s, want %s-DIGEST12-I", obj.GetName(), s.headName()))
	}
	have := obj.GetLabels()
	for _, l := range [...]struct{ key, want string }{
		{labelManagedBy, "eggo"}, {labelCluster, s.cfg.Cluster}, {labelPart, part},
	} {
		got, ok := have[l.key]
		switch {
		case !ok:
			wrong = append(wrong, fmt.Sprintf("no label %s, want %s=%s", l.key, l.key, l.want))
		case got != l.want:
			wrong = append(wrong, fmt.Sprintf("label %s=%s, want %s", l.key, got, l.want))
		}
	}
	if len(wrong) == 0 {
		return nil
	}
	e := &ForeignError{Kind: kind, Namespace: s.src.namespace, Name: obj.GetName(), Cluster: s.cfg.Cluster,
		Is: partIs[part], Wrong: wrong, Refusing: refusing}
	if sec, ok := obj.(*corev1.Secret); ok && part == partHead && sec.Type == secretType {
		// Only this cluster's state is named so, and a Secret's type cannot
		// change: this is the state, its labels edited.
		e.Hint = fmt.Sprintf("if it is this cluster's state and lost its labels, label it again: "+
			"kubectl -n %s label --overwrite secret %s %s=eggo %s=%s %s=%s",
			s.src.namespace, sec.Name, labelManagedBy, labelCluster, s.cfg.Cluster, labelPart, partHead)
	}
	return e
}

// isChunkName: name is this cluster's chunkName(digest, i) for some
// digest and i.
func (s *Store) isChunkName(name string) bool {
	rest, ok := strings.CutPrefix(name, s.headName()+"-")
	if !ok || len(rest) < digestLen+2 || rest[digestLen] != '-' {
		return false
	}
	for _, r := range rest[:digestLen] {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	i, err := strconv.Atoi(rest[digestLen+1:])
	return err == nil && i >= 0 && strconv.Itoa(i) == rest[digestLen+1:]
}

// head reads the head Secret: nil if there is none; a *ForeignError
// (refusing) if the Secret of its name is not eggo's state for this
// cluster.
func (s *Store) head(ctx context.Context, refusing string) (*corev1.Secret, error) {
	head, err := s.secret.get(ctx, s.headName())
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, s.explain("reading", "secrets", err)
	}
	if err := s.owned(head, partHead, refusing); err != nil {
		return nil, err
	}
	return head, nil
}
