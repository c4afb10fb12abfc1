// Package testbed boots real Debian bookworm hosts on this machine for eggo's
// tests and demos: one systemd-nspawn container per host, each with systemd as
// PID 1 and sshd, each in its own network namespace joined by a veth to a
// per-testbed bridge.
//
// Everything a testbed creates is named after its ID (bridge ebr-ID, veths
// ev-ID-N, network namespaces eggo-ID-NODE) and recorded under its run dir
// (RunRoot/ID/testbed.json) before it is created, so Down and DownAll can
// tear down a testbed left behind by a crashed or interrupted process.
//
// Traffic stays on the bridge: nothing here adds NAT or routes towards
// anything but the testbed's own subnet.
package testbed
