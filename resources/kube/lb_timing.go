package kube

import (
	"strconv"
	"time"
)

// How the load balancers follow the apiservers, and how an apiserver's
// restart is timed against them, so that a rolling restart of the masters
// never leaves a request through a load balancer without an apiserver.
//
// haproxy checks each apiserver's /readyz every lbCheckInterval (each check
// may take as long); lbFall failed checks take an apiserver out of the
// pool, lbRise passed ones put it back.
const (
	lbCheckInterval = time.Second
	lbFall          = 2
	lbRise          = 2
)

// lbReadyz is the load balancers' check of an apiserver: its readiness
// but etcd's part of it. All apiservers read one etcd, so its checks fail
// on every apiserver at once when etcd is slow to answer (a member
// restarting in an upgrade, under load): the pool would be empty, and a
// request through a load balancer closed unanswered, while the apiservers
// could have served it. An apiserver shutting down still fails it (its
// shutdown check).
const lbReadyz = "/readyz?exclude=etcd&exclude=etcd-readiness"

// lbDrainTime is the longest a load balancer takes to stop sending new
// connections to an apiserver whose /readyz began to fail: a check that
// had just passed, then lbFall failing ones, each up to an interval apart
// and an interval long.
const lbDrainTime = (2*lbFall + 1) * lbCheckInterval

// lbReaddTime is how long an apiserver's /readyz must keep passing before
// every load balancer has it back in the pool: lbRise passed checks, the
// first up to an interval after it became ready, plus one interval of
// slack for a late check.
const lbReaddTime = (lbRise + 1) * lbCheckInterval

// apiserverShutdownDelay is --shutdown-delay-duration: an apiserver told to
// stop fails /readyz at once but keeps serving this long before it closes
// its port, so the load balancers drain it first (longer than lbDrainTime,
// which the tests check).
const apiserverShutdownDelay = 7 * time.Second

// apiserverWatchDrain is --shutdown-watch-termination-grace-period: once
// the shutdown delay is over, a stopping apiserver ends its clients' watches
// (they reconnect through the load balancers to another apiserver) and
// waits at most this long for them to end. Without it the watches of the
// kubelets, controllers and proxies keep their HTTP/2 connections open
// and the apiserver waits out its 60 s server shutdown timeout: a restart
// as a systemd unit took 67 s to stop, and a static pod was killed at its
// 30 s grace period.
const apiserverWatchDrain = 5 * time.Second

// seconds renders a whole number of seconds for haproxy ("1s").
func seconds(d time.Duration) string { return strconv.Itoa(int(d/time.Second)) + "s" }
