package kubestate

import (
	"bytes"
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Get returns the stored state and its version (the head's
// resourceVersion, what Put and Delete expect back). If there is no state
// yet, the error wraps fs.ErrNotExist.
func (s *Store) Get(ctx context.Context) (data []byte, rev string, err error) {
	// One List of the cluster's Secrets is one snapshot: a head and the
	// chunks it names, never a head with chunks a later write removed.
	list, err := s.secret.list(ctx, s.selector(""))
	if err != nil {
		return nil, "", s.explain("listing", "secrets", err)
	}
	for i := range list.Items {
		if head := &list.Items[i]; head.Name == s.headName() {
			data, err := s.assemble(head, list.Items)
			return data, head.ResourceVersion, err
		}
	}
	return nil, "", &notFoundError{where: s.Describe()}
}

// Put stores data if the head is still at resourceVersion expectRev ("":
// if there is no state yet) and returns the new resourceVersion.
// Otherwise nothing is written and the error is a *StaleError.
//
// A state larger than a chunk is written as chunks first, then the head
// is made to point at them (the one write that makes a version current),
// then the chunks no version needs any more are deleted. A crash at any
// point leaves the previous version whole, or the new one.
func (s *Store) Put(ctx context.Context, data []byte, expectRev string) (newRev string, err error) {
	v := s.split(data, expectRev)
	for _, c := range v.chunks {
		if err := s.putChunk(ctx, c); err != nil {
			return "", err
		}
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
			return "", s.refuse(ctx, v, expectRev)
		}
		return "", s.explain("writing", "secrets", err)
	}
	_ = s.collect(ctx, written) // what it leaves, the next write collects
	return written.ResourceVersion, nil
}

// putChunk creates a chunk; one that exists already (the same version
// written before, by this run or another) must hold the same bytes.
func (s *Store) putChunk(ctx context.Context, c *corev1.Secret) error {
	_, err := s.secret.create(ctx, c)
	if !apierrors.IsAlreadyExists(err) {
		if err != nil {
			return s.explain("writing", "secrets", err)
		}
		return nil
	}
	old, err := s.secret.get(ctx, c.Name)
	if err != nil {
		return s.explain("reading", "secrets", err)
	}
	if bytes.Equal(old.Data[keyChunk], c.Data[keyChunk]) {
		return nil
	}
	c.ResourceVersion = old.ResourceVersion
	if _, err := s.secret.update(ctx, c.Name, c); err != nil {
		return s.explain("writing", "secrets", err)
	}
	return nil
}

// refuse builds the StaleError for a write whose base was replaced, naming
// the version there now and its writer, and removes the chunks the
// refused write made (unless the version there now is the same bytes).
func (s *Store) refuse(ctx context.Context, v *version, expectRev string) error {
	e := &StaleError{Where: s.Describe(), Expected: expectRev}
	cur, err := s.secret.get(ctx, s.headName())
	switch {
	case err == nil:
		e.Actual, e.Writer, e.At = cur.ResourceVersion, cur.Annotations[annWriter], cur.Annotations[annWrittenAt]
	case !apierrors.IsNotFound(err):
		e.Actual, e.Writer = "unknown", fmt.Sprintf("a run this one could not name (%v)", err)
	}
	if len(v.chunks) > 0 && (err != nil || cur.Annotations[annSHA256] != v.sum) {
		for _, c := range v.chunks {
			s.deleteQuietly(ctx, c.Name, "")
		}
	}
	return e
}

// Delete removes the state if the head is still at expectRev (see Put),
// then its chunks. Deleting an absent state with expectRev "" succeeds.
func (s *Store) Delete(ctx context.Context, expectRev string) error {
	if expectRev == "" {
		if _, err := s.secret.get(ctx, s.headName()); err == nil {
			return s.refuse(ctx, &version{}, "")
		}
		return nil
	}
	err := s.secret.delete(ctx, s.headName(), expectRev)
	switch {
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
		return s.refuse(ctx, &version{}, expectRev)
	case err != nil:
		return s.explain("deleting", "secrets", err)
	}
	return s.collect(ctx, nil)
}
