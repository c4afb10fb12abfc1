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
	for _, c := range list.Items {
		if head != nil && (c.Labels[labelDigest] == keepDigest || c.Annotations[annBase] == keepBase) {
			continue
		}
		if err := s.deleteQuietly(ctx, c.Name, c.ResourceVersion); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// deleteQuietly deletes a Secret (only at rev, if given: a chunk rewritten
// since is someone's); one already gone is not an error.
func (s *Store) deleteQuietly(ctx context.Context, name, rev string) error {
	err := s.secret.delete(ctx, name, rev)
	if err != nil && !isGoneOrMoved(err) {
		return s.explain("deleting", "secrets", err)
	}
	return nil
}
