package state

import (
	"runtime"
	"sync"
)

// parallelMin is the number of resources from which a state's resources
// are decoded by several goroutines: a 10,000-node state is 60,000 of
// them, and a plan waits for the whole state before it starts.
var parallelMin = 2048

// resources reads the resources array: split among the processors when
// it is large and well formed, else (and to report any problem exactly
// where the one-pass reader finds it) in one pass.
func (p *jsonReader) resources() ([]Resource, error) {
	start := p.pos
	if rs, end, ok := p.parallelResources(); ok {
		p.pos = end
		return rs, nil
	}
	p.pos = start
	rs := []Resource{}
	err := p.elements(func() error {
		r, err := p.resource()
		rs = append(rs, r)
		return err
	})
	return rs, err
}

// span is one element of an array: data[start:end].
type span struct{ start, end int }

// parallelResources decodes the array at p.pos in as many parts as there
// are processors (up to 4), each with its own reader over the same data.
// ok is false when the array is small or anything is amiss: the caller
// reads it again in one pass, which says what and where.
func (p *jsonReader) parallelResources() (rs []Resource, end int, ok bool) {
	parts := min(runtime.GOMAXPROCS(0), 4)
	if parts < 2 {
		return nil, 0, false
	}
	spans, end, ok := arraySpans(p.data, p.pos)
	if !ok || len(spans) < parallelMin {
		return nil, 0, false
	}
	out := make([][]Resource, parts)
	failed := make([]bool, parts)
	var wg sync.WaitGroup
	for i := range parts {
		part := spans[i*len(spans)/parts : (i+1)*len(spans)/parts]
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := &jsonReader{data: p.data, depth: p.depth + 1, shared: p.shared, current: p.current} // inside the array, as elements counts
			out[i] = make([]Resource, 0, len(part))
			for _, sp := range part {
				q.pos = sp.start
				r, err := q.resource()
				if err != nil || q.pos != sp.end {
					failed[i] = true
					return
				}
				out[i] = append(out[i], r)
			}
		}()
	}
	wg.Wait()
	rs = make([]Resource, 0, len(spans))
	for i := range parts {
		if failed[i] {
			return nil, 0, false
		}
		rs = append(rs, out[i]...)
	}
	return rs, end, true
}

// arraySpans finds the elements of the array starting at (or after blanks
// from) i, by skipping over their text without decoding it, and the
// position after the array. Valid JSON is all it needs to be right; on
// anything else it may say anything, and a decode of its spans fails.
func arraySpans(d []byte, i int) (spans []span, end int, ok bool) {
	i = skipBlanks(d, i)
	if i >= len(d) || d[i] != '[' {
		return nil, 0, false
	}
	i = skipBlanks(d, i+1)
	if i < len(d) && d[i] == ']' {
		return nil, i + 1, true
	}
	for {
		e, ok := skipValue(d, i)
		if !ok {
			return nil, 0, false
		}
		spans = append(spans, span{i, e})
		i = skipBlanks(d, e)
		if i >= len(d) {
			return nil, 0, false
		}
		switch d[i] {
		case ',':
			i = skipBlanks(d, i+1)
		case ']':
			return spans, i + 1, true
		default:
			return nil, 0, false
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipBlanks(d []byte, i int) int {
	for i < len(d) && isSpace(d[i]) {
		i++
	}
	return i
}

// skipValue returns the end of the object, array or string at i.
func skipValue(d []byte, i int) (int, bool) {
	depth := 0
	for i < len(d) {
		switch d[i] {
		case '"':
			for i++; i < len(d) && d[i] != '"'; i++ {
				if d[i] == '\\' {
					i++
				}
			}
			if i >= len(d) {
				return 0, false
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth < 0 {
				return 0, false
			}
		}
		i++
		if depth == 0 {
			return i, true
		}
	}
	return 0, false
}
