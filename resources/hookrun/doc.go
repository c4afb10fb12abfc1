// Package hookrun runs one shell hook on one host over eggo's transport
// (providers.Conn): files copied first, the hook's scripts uploaded to a
// private temporary directory, each script started in its own session and
// process group on the host under a watchdog that sends SIGTERM at the time
// limit and SIGKILL after a grace period, the combined output's tail kept,
// and the failure policy (abort, continue, bounded retry with backoff)
// applied. The HCL hook blocks, their place in the graph, plan display and
// state records are built on top of Run by other packages.
package hookrun
