package ssh

import (
	"bytes"
	"io"
	"strconv"
	"sync"
	"time"
)

// pgidWriter takes the wrapper's process-group line off the front of
// stderr and passes everything else on.
type pgidWriter struct {
	next    io.Writer
	head    []byte
	decided bool
	once    sync.Once
	known   chan struct{}
	pgid    int
}

func newPgidWriter(next io.Writer) *pgidWriter {
	return &pgidWriter{next: next, known: make(chan struct{})}
}

func (w *pgidWriter) Write(p []byte) (int, error) {
	if w.decided {
		return w.pass(p, len(p))
	}
	w.head = append(w.head, p...)
	nl := bytes.IndexByte(w.head, '\n')
	if nl < 0 && len(w.head) < 64 && bytes.HasPrefix([]byte(pgidMarker), w.head[:min(len(w.head), len(pgidMarker))]) {
		return len(p), nil // maybe the marker, not complete yet
	}
	w.decided = true
	rest := w.head
	if nl >= 0 && bytes.HasPrefix(w.head, []byte(pgidMarker)) {
		w.pgid, _ = strconv.Atoi(string(w.head[len(pgidMarker):nl]))
		rest = w.head[nl+1:]
	}
	w.head = nil
	w.done()
	return w.pass(rest, len(p))
}

func (w *pgidWriter) pass(p []byte, n int) (int, error) {
	if len(p) > 0 {
		if _, err := w.next.Write(p); err != nil {
			return 0, err
		}
	}
	return n, nil
}

func (w *pgidWriter) done() { w.once.Do(func() { close(w.known) }) }

// Close flushes a partial first line once stderr has ended.
func (w *pgidWriter) Close() {
	if !w.decided && len(w.head) > 0 {
		_, _ = w.next.Write(w.head)
	}
	w.decided = true
	w.done()
}

// wait returns the command's process group, or 0 if it is not known
// within d.
func (w *pgidWriter) wait(d time.Duration) int {
	select {
	case <-w.known:
		return w.pgid
	case <-time.After(d):
		return 0
	}
}
