package resources

// Shared is compute's value, computed once while c is indexed (see Index)
// and handed to every later caller asking with the same key: what each
// node's expansion would compute alike (a worker's containerd
// configuration, the connection attributes of nodes that connect alike)
// is computed once per plan, not once per node. The value is shared: read
// it, never change it. compute must depend only on c and on what key
// holds. Unindexed, every call computes anew. A key is any comparable
// value; a package's own key type keeps its keys from meeting another's.
func Shared[T any](c *Cluster, key any, compute func() T) T {
	if c == nil || c.topo == nil {
		return compute()
	}
	t := c.topo
	t.mu.Lock()
	v, ok := t.shared[key]
	t.mu.Unlock()
	if ok {
		return v.(T)
	}
	// Outside the lock: compute may ask for another shared value.
	made := compute()
	t.mu.Lock()
	if t.shared == nil {
		t.shared = map[any]any{}
	}
	t.shared[key] = made
	t.mu.Unlock()
	return made
}
