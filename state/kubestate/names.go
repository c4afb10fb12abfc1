package kubestate

import (
	"strconv"

	"k8s.io/apimachinery/pkg/labels"
)

// The objects of one cluster's state, all in the configured namespace:
//
//	Secret eggo-state-CLUSTER               the head: the state itself when it fits one
//	                                        Secret, else which chunks hold it; its
//	                                        sha256 and size either way
//	Secret eggo-state-CLUSTER-DIGEST12-I    chunk I of a larger state whose sha256
//	                                        starts with DIGEST12
//	Lease  eggo-lock-CLUSTER                the lock
//
// A chunk's name carries the digest of the whole state, so the chunks of
// two versions never share a name: a new version is written beside the
// old one and made current by one update of the head.
const (
	secretType = "eggo.io/state"

	labelManagedBy = "app.kubernetes.io/managed-by"
	labelCluster   = "eggo.io/cluster"
	labelPart      = "eggo.io/state-part" // "head" or "chunk"
	labelDigest    = "eggo.io/state-digest"

	annSHA256    = "eggo.io/sha256"     // of the whole state
	annSize      = "eggo.io/size"       // bytes of the whole state
	annChunks    = "eggo.io/chunks"     // 0: the head holds the state
	annWriter    = "eggo.io/written-by" // who wrote this version, for a stale writer's message
	annWrittenAt = "eggo.io/written-at"
	annBase      = "eggo.io/base" // a chunk: the head resourceVersion its write started from
	annLockInfo  = "eggo.io/lock-info"

	keyState = "state" // the head's data key when it holds the state
	keyChunk = "chunk"

	partHead  = "head"
	partChunk = "chunk"

	digestLen = 12 // hex digits of the sha256 in a chunk's name
)

func (s *Store) headName() string  { return "eggo-state-" + s.cfg.Cluster }
func (s *Store) leaseName() string { return "eggo-lock-" + s.cfg.Cluster }

func (s *Store) chunkName(digest string, i int) string {
	return s.headName() + "-" + digest + "-" + strconv.Itoa(i)
}

// labels are on every object of the cluster's state.
func (s *Store) labels(part string) map[string]string {
	return map[string]string{labelManagedBy: "eggo", labelCluster: s.cfg.Cluster, labelPart: part}
}

// selector picks the cluster's Secrets (part "" : head and chunks).
func (s *Store) selector(part string) string {
	set := labels.Set{labelManagedBy: "eggo", labelCluster: s.cfg.Cluster}
	if part != "" {
		set[labelPart] = part
	}
	return set.String()
}
