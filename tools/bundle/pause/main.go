// Command pause is the bundle's pod sandbox program (registry.k8s.io/pause:3.10
// in eggo's offline bundle): it holds a pod's namespaces open and does nothing
// else until the container runtime stops it.
//
// Built statically (CGO_ENABLED=0) so the image needs no libc. As PID 1 of a pod
// that shares its process namespace it also reaps orphaned zombies, as the
// upstream pause does; otherwise they would pile up in the process table.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for sig := range signals {
		if sig == syscall.SIGCHLD {
			reapChildren()
			continue
		}
		fmt.Fprintf(os.Stderr, "pause: shutting down, got %v\n", sig)
		os.Exit(0)
	}
}

// reapChildren collects every child that has exited, without blocking.
func reapChildren() {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
