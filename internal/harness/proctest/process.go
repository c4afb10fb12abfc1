// Package proctest runs a server process for a test harness (etcdtest's
// etcd, apitest's kube-apiserver): its output in a log file, killed with
// the test binary even if the test is killed, polled until it is ready,
// and killed and reaped when the harness stops it.
package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Process is a started server process.
type Process struct {
	name   string // in messages, e.g. "etcd at https://127.0.0.1:PORT"
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has exited and been reaped
}

// Start starts cmd with its stdout and stderr in logFile (made anew).
func Start(name string, cmd *exec.Cmd, logFile string) (*Process, error) {
	log, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	defer log.Close() // the process holds its own descriptor
	cmd.Stdout, cmd.Stderr = log, log
	// It dies with the test binary even if the test is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{name: name, cmd: cmd, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(p.exited) }()
	return p, nil
}

// WaitReady calls ready every interval until it returns nil; it fails when
// the process exits first or timeout passes, with ready's last error.
func (p *Process) WaitReady(interval, timeout time.Duration, ready func() error) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited before it was ready (%v)", p.name, p.cmd.ProcessState)
		case <-time.After(interval):
		}
		if last = ready(); last == nil {
			return nil
		}
	}
	return fmt.Errorf("%s not ready after %s: %v", p.name, timeout, last)
}

// Stop kills the process and waits until it is gone, so that none
// outlives its test.
func (p *Process) Stop() {
	p.cmd.Process.Kill()
	<-p.exited
}

// Pid is the process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Signal sends sig to the process; after it was reaped, that is
// os.ErrProcessDone.
func (p *Process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }
