// Package host is the host resource kind: one per node. It checks the
// machine (preflight facts), streams the package bundle for the node's arch
// and roles over the run's connection, verifies every file by sha256 on the
// host, and records each file and directory it created so that Delete
// removes exactly those. It imports the resources core only.
package host
