package etcdstate

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/user"
	"strconv"
	"time"

	"github.com/eggo-project/eggo/state"
)

// completeLockInfo fills what the caller left empty, the way the file lock
// describes its holder.
func completeLockInfo(info state.LockInfo) state.LockInfo {
	if info.ID == "" {
		var b [16]byte
		_, _ = rand.Read(b[:]) // never fails
		info.ID = hex.EncodeToString(b[:])
	}
	if info.Owner == "" {
		info.Owner = currentUser() + "@" + hostname()
	}
	if info.PID == 0 {
		info.PID = os.Getpid()
	}
	if info.Created.IsZero() {
		info.Created = time.Now().UTC().Truncate(time.Second)
	}
	return info
}

func currentUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if name := os.Getenv("USER"); name != "" {
		return name
	}
	return "uid" + strconv.Itoa(os.Getuid())
}

func hostname() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "unknown-host"
}
