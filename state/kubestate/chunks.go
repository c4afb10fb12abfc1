package kubestate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/state"
)

// version is one state's bytes as Secrets: the head and, when the state
// is larger than a chunk, the chunks it points at.
type version struct {
	sum    string // sha256, hex
	head   *corev1.Secret
	chunks []*corev1.Secret // none when the head holds the state
}

// digest is the part of the sum in the chunks' names.
func (v *version) digest() string { return v.sum[:digestLen] }

// split lays data out as Secrets; base is the head resourceVersion the
// write starts from, recorded on each chunk (see collect).
func (s *Store) split(data []byte, base string) *version {
	sum := sha256.Sum256(data)
	v := &version{sum: hex.EncodeToString(sum[:])}
	v.head = s.object(s.headName(), partHead)
	v.head.Annotations = map[string]string{
		annSHA256:    v.sum,
		annSize:      strconv.Itoa(len(data)),
		annChunks:    "0",
		annWriter:    s.writer(),
		annWrittenAt: time.Now().UTC().Format(time.RFC3339),
	}
	if len(data) <= s.cfg.ChunkSize {
		v.head.Data = map[string][]byte{keyState: data}
		return v
	}
	if base == "" {
		base = "none"
	}
	for i := 0; len(data) > 0; i++ {
		n := min(len(data), s.cfg.ChunkSize)
		c := s.object(s.chunkName(v.digest(), i), partChunk)
		c.Labels[labelDigest] = v.digest()
		c.Annotations = map[string]string{annBase: base}
		c.Data = map[string][]byte{keyChunk: data[:n]}
		v.chunks = append(v.chunks, c)
		data = data[n:]
	}
	v.head.Annotations[annChunks] = strconv.Itoa(len(v.chunks))
	return v
}

func (s *Store) object(name, part string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: s.src.namespace, Labels: s.labels(part)},
		Type:       secretType,
	}
}

// writer names this process for the head's written-by: the lock it holds
// when it holds one (operation and lock ID included), else who and which
// pid.
func (s *Store) writer() string {
	if l, ok := s.held.Any(); ok {
		return l.Info.Describe()
	}
	me := state.NewLockInfo("")
	return fmt.Sprintf("%s (pid %d)", me.Owner, me.PID)
}

// assemble reads the state the head describes out of the Secrets listed
// with it (one List: a consistent snapshot), and checks it against the
// head's sha256 and size.
func (s *Store) assemble(head *corev1.Secret, listed []corev1.Secret) ([]byte, error) {
	ann := head.Annotations
	n, err := strconv.Atoi(ann[annChunks])
	if err != nil || n < 0 || len(ann[annSHA256]) != 2*sha256.Size {
		return nil, fmt.Errorf("%s: the head Secret lacks a valid %s or %s annotation: it was not written by eggo, or was edited",
			s.Describe(), annChunks, annSHA256)
	}
	data := head.Data[keyState]
	if n > 0 {
		byName := make(map[string]*corev1.Secret, len(listed))
		for i := range listed {
			byName[listed[i].Name] = &listed[i]
		}
		data = nil
		for i := 0; i < n; i++ {
			name := s.chunkName(ann[annSHA256][:digestLen], i)
			c, ok := byName[name]
			if !ok {
				return nil, fmt.Errorf("%s: chunk %d of %d (Secret %s) is missing: the state cannot be read whole", s.Describe(), i+1, n, name)
			}
			if err := s.owned(c, partChunk, toReadChunk); err != nil {
				return nil, err
			}
			data = append(data, c.Data[keyChunk]...)
		}
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != ann[annSHA256] || strconv.Itoa(len(data)) != ann[annSize] {
		return nil, fmt.Errorf("%s: the state read back (%d bytes, sha256 %s) is not what was written (%s bytes, sha256 %s): a Secret was changed by hand",
			s.Describe(), len(data), got, ann[annSize], ann[annSHA256])
	}
	return data, nil
}
