package kubestate

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Get returns the stored state and its version (the head's
// resourceVersion, what Put and Delete expect back). If there is no state
// yet (no Secret of the head's name at all), the error wraps
// fs.ErrNotExist. A Secret of that name that is not eggo's state for this
// cluster (its labels lost or changed, another type) is a *ForeignError,
// never "no state": that would plan a new cluster, with a new CA.
func (s *Store) Get(ctx context.Context) (data []byte, rev string, err error) {
	for attempt := 1; ; attempt++ {
		// One List of the cluster's Secrets is one snapshot: a head and the
		// chunks it names, never a head with chunks a later write removed.
		list, err := s.secret.list(ctx, s.selector(""))
		if err != nil {
			return nil, "", s.explain("listing", "secrets", err)
		}
		for i := range list.Items {
			if head := &list.Items[i]; head.Name == s.headName() {
				if err := s.owned(head, partHead, toRead); err != nil {
					return nil, "", err
				}
				data, err := s.assemble(head, list.Items)
				return data, head.ResourceVersion, err
			}
		}
		// The List selects by label, so a head that lost its labels is not
		// in it: there is no state only if there is no head at all.
		head, err := s.head(ctx, toRead)
		if err != nil {
			return nil, "", err
		}
		if head == nil {
			return nil, "", &notFoundError{where: s.Describe()}
		}
		// eggo's head, created since the List: read again.
		if attempt == 3 {
			return nil, "", fmt.Errorf("%s: the state was written during each of %d reads: try again", s.Describe(), attempt)
		}
	}
}

// Put stores data if the head is still at resourceVersion expectRev ("":
// if there is no state yet) and returns the new resourceVersion.
// Otherwise nothing is written and the error is a *StaleError; a head
// Secret that is not eggo's state is a *ForeignError, and is left as it is.
//
// A state larger than a chunk is written as chunks first, then the head
// is made to point at them (the one write that makes a version current),
// then the chunks no version needs any more are deleted. A crash at any
// point leaves the previous version whole, or the new one.
func (s *Store) Put(ctx context.Context, data []byte, expectRev string) (newRev string, err error) {
	// The head is looked at before anything is written: a write that is
	// stale already, or whose head is someone else's Secret, writes no
	// chunk. The write itself is conditioned on expectRev, so the head it
	// replaces is the one checked here.
	cur, err := s.head(ctx, toOverwrite)
	if err != nil {
		return "", err
	}
	if cur == nil && expectRev != "" || cur != nil && cur.ResourceVersion != expectRev {
		return "", s.staleError(cur, nil, expectRev)
	}
	v := s.split(data, expectRev)
	var chunks []*corev1.Secret // as written or found, for refuse
	for _, c := range v.chunks {
		w, err := s.putChunk(ctx, c)
		if err != nil {
			return "", err
		}
		chunks = append(chunks, w)
	}
	var written *corev1.Secret
	if expectRev == "" {
		written, err = s.secret.create(ctx, v.head)
	} else {
		v.head.ResourceVersion = expectRev
		written, err = s.secret.update(ctx, v.head.Name, v.head)
	}
	if err != nil {
		if apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err) || (expectRev != "" && apierrors.IsNotFound(err)) {
			return "", s.refuse(ctx, v.sum, chunks, expectRev)
		}
		return "", s.explain("writing", "secrets", err)
	}
	_ = s.collect(ctx, written) // what it leaves, the next write collects
	return written.ResourceVersion, nil
}

// putChunk creates a chunk; one that exists already (the same version
// written before, by this run or another) must be eggo's chunk, and is
// rewritten unless it holds the same bytes. It returns the chunk as the
// server has it.
func (s *Store) putChunk(ctx context.Context, c *corev1.Secret) (*corev1.Secret, error) {
	out, err := s.secret.create(ctx, c)
	if !apierrors.IsAlreadyExists(err) {
		if err != nil {
			return nil, s.explain("writing", "secrets", err)
		}
		return out, nil
	}
	old, err := s.secret.get(ctx, c.Name)
	if err != nil {
		return nil, s.explain("reading", "secrets", err)
	}
	if err := s.owned(old, partChunk, toOverwrite); err != nil {
		return nil, err
	}
	if bytes.Equal(old.Data[keyChunk], c.Data[keyChunk]) {
		return old, nil
	}
	c.ResourceVersion = old.ResourceVersion
	if out, err = s.secret.update(ctx, c.Name, c); err != nil {
		return nil, s.explain("writing", "secrets", err)
	}
	return out, nil
}

// staleError refuses a write expecting expectRev where the head is cur
// (nil: there is none, or it could not be read: readErr), naming the
// version there and its writer.
func (s *Store) staleError(cur *corev1.Secret, readErr error, expectRev string) *StaleError {
	e := &StaleError{Where: s.Describe(), Expected: expectRev}
	switch {
	case cur != nil:
		e.Actual, e.Writer, e.At = cur.ResourceVersion, cur.Annotations[annWriter], cur.Annotations[annWrittenAt]
	case readErr != nil:
		e.Actual, e.Writer = "unknown", fmt.Sprintf("a run this one could not name (%v)", readErr)
	}
	return e
}

// refuse is the error of a head write the server refused (its base was
// replaced since Put looked, or a foreign Secret took its name): it
// removes the chunks the refused write made or found (unless the version
// there now is the same bytes), each only as it left them.
func (s *Store) refuse(ctx context.Context, sum string, chunks []*corev1.Secret, expectRev string) error {
	cur, err := s.head(ctx, toOverwrite)
	if len(chunks) > 0 && (cur == nil || cur.Annotations[annSHA256] != sum) {
		for _, c := range chunks {
			s.deleteQuietly(ctx, c)
		}
	}
	if foreign := (*ForeignError)(nil); errors.As(err, &foreign) {
		return err
	}
	return s.staleError(cur, err, expectRev)
}

// Delete removes the state if the head is still at expectRev (see Put),
// then its chunks. Deleting an absent state with expectRev "" succeeds. A
// head Secret that is not eggo's state is a *ForeignError, and is left as
// it is.
func (s *Store) Delete(ctx context.Context, expectRev string) error {
	cur, err := s.head(ctx, toDelete)
	switch {
	case err != nil:
		return err
	case cur == nil && expectRev == "":
		return nil
	case cur == nil || cur.ResourceVersion != expectRev:
		return s.staleError(cur, nil, expectRev)
	}
	// At the UID and resourceVersion checked: a head replaced since is not
	// deleted.
	if err := s.secret.delete(ctx, cur); isGoneOrMoved(err) {
		cur, err := s.head(ctx, toDelete)
		if err != nil {
			return err
		}
		return s.staleError(cur, nil, expectRev)
	} else if err != nil {
		return s.explain("deleting", "secrets", err)
	}
	return s.collect(ctx, nil)
}
