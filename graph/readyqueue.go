package graph

// readyQueue is a min-heap of vertex ids. Ids are insertion indexes, so the
// vertex popped is always the earliest-added of those ready: with one worker
// the walk order is fully determined by how the graph was built.
type readyQueue []int32

func (q readyQueue) Len() int { return len(q) }

func (q *readyQueue) push(id int32) {
	*q = append(*q, id)
	h := *q
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if h[parent] <= h[i] {
			break
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
}

func (q *readyQueue) pop() int32 {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		smallest, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l] < h[smallest] {
			smallest = l
		}
		if r < len(h) && h[r] < h[smallest] {
			smallest = r
		}
		if smallest == i {
			break
		}
		h[i], h[smallest] = h[smallest], h[i]
		i = smallest
	}
	*q = h
	return top
}
