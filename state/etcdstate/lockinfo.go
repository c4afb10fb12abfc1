package etcdstate

import "github.com/eggo-project/eggo/state"

// completeLockInfo fills what the caller left empty, the way the file lock
// describes its holder.
func completeLockInfo(info state.LockInfo) state.LockInfo {
	full := state.NewLockInfo(info.Operation)
	if info.ID == "" {
		info.ID = full.ID
	}
	if info.Owner == "" {
		info.Owner = full.Owner
	}
	if info.PID == 0 {
		info.PID = full.PID
	}
	if info.Created.IsZero() {
		info.Created = full.Created
	}
	return info
}
