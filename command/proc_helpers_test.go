package command

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/host"
)

// cliEnv, set in a process's environment, makes this test binary the
// eggo CLI (what main.go does) with the host kind alone, as in every
// command test: the real binary plans etcd and the Kubernetes services for
// the fixture's master node, which need a bundle and systemd this machine
// does not have.
const cliEnv = "EGGO_COMMAND_TEST_AS_CLI"

func init() {
	if os.Getenv(cliEnv) != "1" {
		return
	}
	testKinds = []resources.Kind{host.New()}
	os.Exit(Run(os.Args[1:], StdStreams()))
}

// testBinary is this test binary, which runs as eggo under cliEnv.
func testBinary(t *testing.T) string {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// proc is an eggo process; its output goes to files so that a killed
// process's orphans (the hook's sleep) cannot hold a pipe open.
type proc struct {
	t        *testing.T
	cmd      *exec.Cmd
	out, err string // file names
	done     chan struct{}
	code     int
	ended    time.Time
}

// start runs the eggo binary in the fixture's directory, in a process
// group of its own so cleanup can reach the hook scripts it started.
func (s *fixture) start(args ...string) *proc {
	s.t.Helper()
	dir := s.t.TempDir()
	p := &proc{t: s.t, out: filepath.Join(dir, "stdout"), err: filepath.Join(dir, "stderr"), done: make(chan struct{})}
	stdout, err := os.Create(p.out)
	if err != nil {
		s.t.Fatal(err)
	}
	stderr, err := os.Create(p.err)
	if err != nil {
		s.t.Fatal(err)
	}
	p.cmd = exec.Command(testBinary(s.t), append([]string{s.chdir()}, args...)...)
	p.cmd.Env = s.env0()
	p.cmd.Stdout, p.cmd.Stderr = stdout, stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	stdout.Close()
	stderr.Close()
	go func() {
		p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		p.ended = time.Now()
		close(p.done)
	}()
	pgid := p.cmd.Process.Pid
	s.t.Cleanup(func() {
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	})
	return p
}

// env0 is the fixture's environment plus PATH, which the hook's shell needs.
func (s *fixture) env0() []string { return s.env("PATH="+os.Getenv("PATH"), cliEnv+"=1") }

// wait waits for the process to end (the test fails after within) and
// returns what it printed.
func (p *proc) wait(within time.Duration) result {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(within):
		p.t.Fatalf("eggo %v did not end within %s\n%s", p.cmd.Args[1:], within, p.output().all())
	}
	r := p.output()
	r.code = p.code
	return r
}

func (p *proc) output() result {
	out, _ := os.ReadFile(p.out)
	errb, _ := os.ReadFile(p.err)
	return result{out: string(out), err: string(errb)}
}

// slowHook is a pre-deploy hook that sleeps as long as its delay file says
// (0 until setDelay), so a test can keep an apply busy while it holds the
// lock without changing the configuration hash.
type slowHook struct {
	test  *testing.T // not t: sites embed both a fixture and a slowHook
	delay string     // the file holding the sleep, in seconds
}

// addSlowHook writes the hook into f's configuration.
func (f *fixture) addSlowHook() *slowHook {
	f.t.Helper()
	h := &slowHook{test: f.t, delay: filepath.Join(filepath.Dir(f.dir), "delay")}
	h.setDelay(0)
	f.write("slow.sh", fmt.Sprintf("#!/bin/sh\nsleep \"$(cat %s)\"\n", h.delay))
	f.write("hook.hcl", `hook "slow" {
  on      = "pre-deploy"
  source  = "slow.sh"
  timeout = "120s"
}
`)
	return h
}

func (h *slowHook) setDelay(seconds int) {
	h.test.Helper()
	if err := os.WriteFile(h.delay, []byte(fmt.Sprint(seconds)), 0o644); err != nil {
		h.test.Fatal(err)
	}
}
