package resources

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// BundleFileSHA256 is the sha256 of the bundle file rel for node n's arch.
// A service whose program does not change with the Kubernetes version
// (etcd is its own release) versions itself by it, so an upgrade restarts
// it only when its program did change.
// While c is indexed, each arch's file is looked at once.
func BundleFileSHA256(c *Cluster, n Node, rel string) (string, error) {
	d := Shared(c, bundleFileDigest{NodeArch(n), rel}, func() fileDigest {
		sum, err := bundleFileSHA256(c, n, rel)
		return fileDigest{sum, err}
	})
	return d.sum, d.err
}

// bundleFileDigest keys Shared's digest of an arch's bundle file.
type bundleFileDigest struct{ arch, rel string }

type fileDigest struct {
	sum string
	err error
}

func bundleFileSHA256(c *Cluster, n Node, rel string) (string, error) {
	p, why := BundleLacks(c, n, rel)
	if why != "" {
		return "", fmt.Errorf("%s: %s", p, why)
	}
	return FileSHA256(p)
}

// FileSHA256 is the sha256 of the local file p, hashed once per process for
// as long as its size and time stamp stay the same: the host kind hashes
// every bundle file and the services version themselves by some of the
// same files, and a bundle is a gigabyte.
func FileSHA256(p string) (string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	key := digestKey{path: p, size: st.Size(), mtime: st.ModTime()}
	digestCache.Lock()
	sum, ok := digestCache.sums[key]
	digestCache.Unlock()
	if ok {
		return sum, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	sum = hex.EncodeToString(h.Sum(nil))
	digestCache.Lock()
	digestCache.sums[key] = sum
	digestCache.Unlock()
	return sum, nil
}

type digestKey struct {
	path  string
	size  int64
	mtime time.Time
}

var digestCache = struct {
	sync.Mutex
	sums map[digestKey]string
}{sums: map[digestKey]string{}}
