//go:build !unix

package state

// processAlive cannot check processes here, so no lock is ever called stale.
func processAlive(pid int) (alive, known bool) { return false, false }
