package etcdstate

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Get returns the stored state and its revision (the key's ModRevision,
// what Put and Delete expect back). If there is no state yet, the error
// wraps fs.ErrNotExist.
func (s *Store) Get(ctx context.Context) (data []byte, rev int64, err error) {
	resp, err := s.client.Get(ctx, s.key)
	if err != nil {
		return nil, 0, fmt.Errorf("reading %s: %w", s.Describe(), err)
	}
	if len(resp.Kvs) == 0 {
		return nil, 0, &notFoundError{where: s.Describe()}
	}
	kv := resp.Kvs[0]
	return kv.Value, kv.ModRevision, nil
}

// Put stores data if the key is still at revision expectRev (0: if there
// is no state yet) and returns the new revision. Otherwise nothing is
// written and the error is a *StaleError.
func (s *Store) Put(ctx context.Context, data []byte, expectRev int64) (newRev int64, err error) {
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(s.key), "=", expectRev)).
		Then(clientv3.OpPut(s.key, string(data))).
		Else(clientv3.OpGet(s.key, clientv3.WithKeysOnly())).
		Commit()
	if err != nil {
		return 0, fmt.Errorf("writing %s: %w (the write may or may not have happened; read the state again)", s.Describe(), err)
	}
	if !resp.Succeeded {
		return 0, s.staleError(resp, expectRev)
	}
	// A transaction's writes all carry the revision it created.
	return resp.Header.Revision, nil
}

// Delete removes the state if the key is still at revision expectRev; see
// Put. Deleting an absent key with expectRev 0 succeeds and does nothing.
func (s *Store) Delete(ctx context.Context, expectRev int64) error {
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(s.key), "=", expectRev)).
		Then(clientv3.OpDelete(s.key)).
		Else(clientv3.OpGet(s.key, clientv3.WithKeysOnly())).
		Commit()
	if err != nil {
		return fmt.Errorf("deleting %s: %w", s.Describe(), err)
	}
	if !resp.Succeeded {
		return s.staleError(resp, expectRev)
	}
	return nil
}

// staleError reads the key's actual revision from a failed transaction's
// Else branch.
func (s *Store) staleError(resp *clientv3.TxnResponse, expected int64) *StaleError {
	e := &StaleError{Key: s.key, Expected: expected}
	if r := resp.Responses[0].GetResponseRange(); r != nil && len(r.Kvs) > 0 {
		e.Actual = r.Kvs[0].ModRevision
	}
	return e
}
