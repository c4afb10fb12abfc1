// Package nspawntest boots real Debian bookworm hosts on this machine for eggo's
// tests and demos: one systemd-nspawn container per host, each with systemd as
// PID 1 and sshd, each in its own network namespace joined by a veth to a
// per-testbed bridge.
//
// With Options.Networks > 1 the nodes are spread over several bridges, each
// with its own /24 (this machine takes .1 of each), joined by a router: a
// network namespace with a veth leg on every bridge at the subnet's .254
// and IPv4 forwarding on inside it only. A node keeps its default route to
// its bridge's .1 and routes the other subnets via its own subnet's .254;
// Host.Network and Testbed.Networks say which node is where.
//
// Everything a testbed creates is named after its ID (bridges ebr-ID and
// ebr-ID-N, veths ev-ID-N and the router's ev-ID-rN, network namespaces
// eggo-ID-NODE and the router's eggo-ID--router) and recorded under its run
// dir (RunRoot/ID/testbed.json) before it is created, so Down and DownAll
// can tear down a testbed left behind by a crashed or interrupted process.
//
// Traffic stays on the testbed: nothing here adds NAT, enables forwarding
// on this machine, or routes towards anything but the testbed's own subnets.
package nspawntest
