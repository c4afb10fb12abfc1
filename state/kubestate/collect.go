package kubestate

import (
	"context"

	corev1 "k8s.io/api/core/v1"
)

// collect deletes the chunks no version needs once head is current (nil:
// the state was deleted): every chunk but head's own and those of a write
// that started from head, which another run may be making right now.
// What it leaves (a request failed, a run crashed between its chunks and
// its head) the next write collects: a chunk based on an older head can
// never become current, since its head update would be refused.
//
// The chunks are found by their labels: a Secret labelled so that is not
// eggo's chunk (another type) is left, and named in the error.
func (s *Store) collect(ctx context.Context, head *corev1.Secret) error {
	list, err := s.secret.list(ctx, s.selector(partChunk))
	if err != nil {
		return s.explain("listing", "secrets", err)
	}
	keepDigest, keepBase := "", ""
	if head != nil {
		keepBase = head.ResourceVersion
		if head.Annotations[annChunks] != "0" {
			keepDigest = head.Annotations[annSHA256][:digestLen]
		}
	}
	var firstErr error
	for i := range list.Items {
		c := &list.Items[i]
		if err := s.owned(c, partChunk, toDelete); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if head != nil && (c.Labels[labelDigest] == keepDigest || c.Annotations[annBase] == keepBase) {
			continue
		}
		if err := s.deleteQuietly(ctx, c); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// deleteQuietly deletes a Secret as c has it (its UID, its
// resourceVersion: a chunk rewritten since is someone's); one already
// gone or changed is not an error.
func (s *Store) deleteQuietly(ctx context.Context, c *corev1.Secret) error {
	err := s.secret.delete(ctx, c)
	if err != nil && !isGoneOrMoved(err) {
		return s.explain("deleting", "secrets", err)
	}
	return nil
}
